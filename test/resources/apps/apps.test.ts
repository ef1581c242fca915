import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import {
  APP,
  clientFunctionTool,
  created,
  expectGoogleError,
  LOCATION,
  read,
  violatedField,
} from '../../faces/ces/ces-test-client.ts';

const APPS = `/v1/${LOCATION}/apps`;
const OPERATION = new RegExp(`^${LOCATION}/operations/[a-z0-9]+$`);

describe('CES apps', () => {
  let baton: TestBaton;
  let memberKey: string;
  const asMember = (method: string, path: string, body?: unknown) =>
    baton.request(method, path, body, { authorization: `Bearer ${memberKey}` });

  beforeAll(async () => {
    baton = await startTestBaton();
    const key = await baton.request('POST', '/v1/api-keys', { role: 'member' });
    expect(key.status).toBe(201);
    memberKey = key.body.key;
  });
  afterAll(async () => baton?.close());

  it('create answers with a done Operation carrying the App; get and list show it', async () => {
    const operation = await created(baton, `${APPS}?appId=shop`, {
      displayName: 'Shop',
      description: 'Storefront agents',
      modelSettings: { model: 'scripted:auto', temperature: 0.2 },
      timeZoneSettings: { timeZone: 'Europe/Lisbon' },
      toolExecutionMode: 'SEQUENTIAL',
      variableDeclarations: [{ name: 'customer_id', description: 'Who is talking', schema: { type: 'STRING' } }],
      metadata: { team: 'retail' },
      deploymentCount: 9,
    });
    expect(operation).toEqual({
      name: expect.stringMatching(OPERATION),
      done: true,
      response: {
        '@type': 'type.googleapis.com/google.cloud.ces.v1.App',
        name: `${LOCATION}/apps/shop`,
        displayName: 'Shop',
        description: 'Storefront agents',
        modelSettings: { model: 'scripted:auto', temperature: 0.2 },
        timeZoneSettings: { timeZone: 'Europe/Lisbon' },
        toolExecutionMode: 'SEQUENTIAL',
        variableDeclarations: [{ name: 'customer_id', description: 'Who is talking', schema: { type: 'STRING' } }],
        metadata: { team: 'retail' },
        createTime: expect.any(String),
        updateTime: expect.any(String),
        etag: expect.any(String),
      },
    });
    const { '@type': _type, ...app } = operation.response;
    expect((await read(baton, app.name)).body).toEqual(app);
    const listed = (await baton.request('GET', APPS)).body.apps.map((entry: any) => entry.name);
    expect(listed).toEqual([APP, `${LOCATION}/apps/shop`]);

    const generated = await created(baton, APPS, { displayName: 'Generated' });
    expect(generated.response.name).toMatch(new RegExp(`^${LOCATION}/apps/[a-z][a-z0-9]{11}$`));
  });

  it('updates with and without a mask; the new app default model applies to its new agents', async () => {
    await created(baton, `${APPS}?appId=editable`, { displayName: 'Editable', description: 'old', pinned: true });
    const masked = await baton.request('PATCH', `${APPS}/editable?updateMask=modelSettings.model,description`, {
      description: 'new',
      modelSettings: { model: 'scripted:auto' },
    });
    expect(masked.status).toBe(200);
    expect(masked.body).toMatchObject({
      displayName: 'Editable',
      description: 'new',
      pinned: true,
      modelSettings: { model: 'scripted:auto' },
    });
    const whole = await baton.request('PATCH', `${APPS}/editable`, { displayName: 'Replaced' });
    expect(whole.status).toBe(200);
    expect(whole.body.pinned).toBeUndefined();
    expect(whole.body.description).toBeUndefined();
  });

  it('delete answers with a done Operation (Empty) and removes everything the app owns', async () => {
    await created(baton, `${APPS}?appId=gone`, { displayName: 'Gone' });
    const gone = `${LOCATION}/apps/gone`;
    await created(baton, `/v1/${gone}/tools?toolId=t`, clientFunctionTool('t'));
    const appId = (await baton.baton.store.apps.getByName('gone'))!.id;
    const operation = await baton.request('DELETE', `/v1/${gone}`);
    expect(operation.body).toEqual({
      name: expect.stringMatching(OPERATION),
      done: true,
      response: { '@type': 'type.googleapis.com/google.protobuf.Empty' },
    });
    expectGoogleError(await read(baton, gone), 404, 'NOT_FOUND');
    expect(await baton.baton.store.resources.list(appId, 'tools')).toEqual([]);
  });

  it('a member key cannot create apps, lists only its own app and sees no other', async () => {
    const error = expectGoogleError(
      await asMember('POST', `${APPS}?appId=sneaky`, { displayName: 'Sneaky' }),
      403,
      'PERMISSION_DENIED',
    );
    expect(error.message).toContain("needs a key with role 'operator'");
    expectGoogleError(await read(baton, `${LOCATION}/apps/sneaky`), 404, 'NOT_FOUND');
    const listed = await asMember('GET', APPS);
    expect(listed.body.apps.map((app: any) => app.name)).toEqual([APP]);
    // Another app is not found, whoever asks; deleting is refused by role before anything is looked up.
    expectGoogleError(await asMember('GET', `${APPS}/shop`), 404, 'NOT_FOUND');
    expectGoogleError(await asMember('DELETE', `${APPS}/shop`), 403, 'PERMISSION_DENIED');
    expect((await read(baton, `${LOCATION}/apps/shop`)).status).toBe(200);
  });

  it('refuses deleting the caller’s own app, a stale etag, another project, a duplicate id and unknown fields', async () => {
    const own = expectGoogleError(await baton.request('DELETE', `/v1/${APP}`), 400, 'FAILED_PRECONDITION');
    expect(own.message).toContain('the app of the operator key');
    expect((await read(baton, APP)).status).toBe(200);

    const app = (await created(baton, `${APPS}?appId=guarded`, { displayName: 'Guarded' })).response;
    await baton.request('PATCH', `/v1/${app.name}?updateMask=description`, { description: 'changed' });
    expectGoogleError(
      await baton.request('DELETE', `/v1/${app.name}?etag=${encodeURIComponent(app.etag)}`),
      409,
      'ABORTED',
    );
    expect((await read(baton, app.name)).body.description).toBe('changed');

    // The operator manages apps server-wide, in any project.
    expect(
      (await baton.request('POST', '/v1/projects/other/locations/global/apps', { displayName: 'Elsewhere' })).status,
    ).toBe(200);
    expect(
      violatedField(
        expectGoogleError(
          await baton.request('POST', `${APPS}?appId=guarded`, { displayName: 'Twin' }),
          409,
          'ALREADY_EXISTS',
        ),
      ),
    ).toBe('appId');
    expect(
      violatedField(
        expectGoogleError(
          await baton.request('POST', `${APPS}?appId=odd`, { displayName: 'Odd', audioProcessingConfig: {} }),
          400,
          'INVALID_ARGUMENT',
        ),
      ),
    ).toBe('app.audioProcessingConfig');
    expect(
      violatedField(
        expectGoogleError(
          await baton.request('POST', `${APPS}?appId=odd`, { description: 'no name' }),
          400,
          'INVALID_ARGUMENT',
        ),
      ),
    ).toBe('app.displayName');
    expect(
      violatedField(
        expectGoogleError(
          await baton.request('POST', `${APPS}?appId=odd`, {
            displayName: 'x',
            rootAgent: `${LOCATION}/apps/odd/agents/a`,
          }),
          400,
          'INVALID_ARGUMENT',
        ),
      ),
    ).toBe('app.rootAgent');
    expect(
      violatedField(
        expectGoogleError(
          await baton.request('POST', `${APPS}?appId=odd`, {
            displayName: 'x',
            timeZoneSettings: { timeZone: 'Mars/Olympus' },
          }),
          400,
          'INVALID_ARGUMENT',
        ),
      ),
    ).toBe('app.timeZoneSettings.timeZone');
    expectGoogleError(await read(baton, `${LOCATION}/apps/odd`), 404, 'NOT_FOUND');
    expect((await read(baton, app.name)).body.displayName).toBe('Guarded');
  });

  it('rootAgent must name an existing agent of the app', async () => {
    const before = (await read(baton, APP)).body;
    expectGoogleError(
      await baton.request('PATCH', `/v1/${APP}?updateMask=rootAgent`, { rootAgent: `${APP}/agents/missing` }),
      400,
      'INVALID_ARGUMENT',
    );
    expect((await read(baton, APP)).body).toEqual(before);
    await created(baton, `/v1/${APP}/agents?agentId=entry`, { displayName: 'Entry' });
    const updated = await baton.request('PATCH', `/v1/${APP}?updateMask=rootAgent`, {
      rootAgent: `${APP}/agents/entry`,
    });
    expect(updated.body.rootAgent).toBe(`${APP}/agents/entry`);
  });
});
