import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import {
  APP,
  clientFunctionTool,
  created,
  expectGoogleError,
  mcpToolset,
  read,
  violatedField,
} from '../../faces/ces/ces-test-client.ts';

const AGENTS = `/v1/${APP}/agents`;

describe('CES agents: create, read, update, delete', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
    await created(baton, `/v1/${APP}/tools?toolId=lookup`, clientFunctionTool('lookup_order'));
    await created(baton, `/v1/${APP}/toolsets?toolsetId=crm`, mcpToolset('CRM'));
  });
  afterAll(async () => baton?.close());

  it('creates a Baton agent: instruction, model, tools and toolsets map to its definition', async () => {
    const agent = await created(baton, `${AGENTS}?agentId=support`, {
      displayName: 'Support',
      description: 'Answers customers',
      instruction: 'Be brief.',
      modelSettings: { model: 'scripted:auto', temperature: 0.5 },
      tools: [`${APP}/tools/lookup`],
      toolsets: [{ toolset: `${APP}/toolsets/crm`, toolIds: ['search'] }],
      llmAgent: {},
    });
    expect(agent).toEqual({
      name: `${APP}/agents/support`,
      displayName: 'Support',
      description: 'Answers customers',
      instruction: 'Be brief.',
      modelSettings: { model: 'scripted:auto', temperature: 0.5 },
      tools: [`${APP}/tools/lookup`],
      toolsets: [{ toolset: `${APP}/toolsets/crm`, toolIds: ['search'] }],
      llmAgent: {},
      createTime: expect.any(String),
      updateTime: expect.any(String),
      etag: expect.any(String),
    });
    expect((await read(baton, agent.name)).body).toEqual(agent);
    const record = await baton.baton.store.agents.get(baton.baton.defaultAppId, 'support');
    expect(record!.definition).toMatchObject({
      instructions: 'Be brief.',
      model: 'scripted:auto',
      temperature: 0.5,
      displayName: 'Support',
      toolIds: ['lookup'],
      toolsets: [{ toolsetId: 'crm', toolIds: ['search'] }],
    });
  });

  it('generates an id and takes the model from the app, else scripted:auto', async () => {
    const agent = await created(baton, AGENTS, { displayName: 'Plain' });
    expect(agent.name).toMatch(new RegExp(`^${APP}/agents/[a-z][a-z0-9]{11}$`));
    expect(agent.modelSettings).toEqual({ model: 'scripted:auto' });
  });

  it('keeps fields Baton does not act on yet and returns them unchanged', async () => {
    const extras = {
      childAgents: [`${APP}/agents/support`],
      beforeModelCallbacks: [{ pythonCode: 'def f(): pass', description: 'audit', disabled: true }],
      guardrails: [`${APP}/guardrails/polite`],
      transferRules: [{ childAgent: `${APP}/agents/support`, direction: 'PARENT_TO_CHILD' }],
    };
    const agent = await created(baton, `${AGENTS}?agentId=router`, { displayName: 'Router', ...extras });
    expect(agent).toMatchObject(extras);
    expect((await baton.baton.store.agents.get(baton.baton.defaultAppId, 'router'))!.definition.extras).toEqual(extras);
  });

  it('updates with a mask, and without one replaces the CES fields but keeps Baton-only settings', async () => {
    const native = await baton.request('POST', '/v1/agents', {
      name: 'tuned',
      model: 'scripted:auto',
      instructions: 'old',
      max_steps: 3,
      input_policy: 'queue',
    });
    expect(native.status).toBe(201);
    const before = (await read(baton, `${APP}/agents/tuned`)).body;
    expect(before.displayName).toBe('tuned');

    const masked = await baton.request(
      'PATCH',
      `/v1/${APP}/agents/tuned?updateMask=instruction,modelSettings.temperature`,
      { instruction: 'new', modelSettings: { temperature: 1 }, description: 'not masked' },
    );
    expect(masked.status).toBe(200);
    expect(masked.body).toMatchObject({
      instruction: 'new',
      modelSettings: { model: 'scripted:auto', temperature: 1 },
    });
    expect(masked.body.description).toBeUndefined();
    expect(masked.body.etag).not.toBe(before.etag);

    const whole = await baton.request('PATCH', `/v1/${APP}/agents/tuned`, {
      displayName: 'Tuned',
      tools: [`${APP}/tools/lookup`],
    });
    expect(whole.status).toBe(200);
    expect(whole.body.instruction).toBeUndefined();
    expect(whole.body.modelSettings).toEqual({ model: 'scripted:auto' });
    const wire = (await baton.request('GET', '/v1/agents/tuned')).body;
    expect(wire).toMatchObject({ max_steps: 3, input_policy: 'queue', instructions: '' });
  });

  it('deletes an agent nobody refers to', async () => {
    await created(baton, `${AGENTS}?agentId=temp`, { displayName: 'Temp' });
    expect((await baton.request('DELETE', `${AGENTS}/temp`)).status).toBe(200);
    expectGoogleError(await read(baton, `${APP}/agents/temp`), 404, 'NOT_FOUND');
  });

  it('hides implicit model agents', async () => {
    expect((await baton.request('POST', '/v1/responses', { model: 'scripted:auto', input: 'hi' })).status).toBe(200);
    const names = (await baton.request('GET', `${AGENTS}?pageSize=1000`)).body.agents.map((agent: any) => agent.name);
    expect(names).toContain(`${APP}/agents/support`);
    expect(names.some((name: string) => name.includes(':'))).toBe(false);
  });

  it('a duplicate agentId is ALREADY_EXISTS', async () => {
    const before = (await read(baton, `${APP}/agents/support`)).body;
    const error = expectGoogleError(
      await baton.request('POST', `${AGENTS}?agentId=support`, { displayName: 'Again' }),
      409,
      'ALREADY_EXISTS',
    );
    expect(violatedField(error)).toBe('agentId');
    expect((await read(baton, before.name)).body).toEqual(before);
  });

  it('refuses missing or foreign references, remoteDialogflowAgent, a missing displayName and bad models', async () => {
    const cases: [object, string][] = [
      [{ displayName: 'x', tools: [`${APP}/tools/nope`] }, 'agent.tools[0]'],
      [{ displayName: 'x', tools: ['lookup'] }, 'agent.tools[0]'],
      [{ displayName: 'x', tools: ['projects/other/locations/global/apps/default/tools/lookup'] }, 'agent.tools[0]'],
      [{ displayName: 'x', toolsets: [{ toolset: `${APP}/toolsets/nope` }] }, 'agent.toolsets[0].toolset'],
      [{ displayName: 'x', childAgents: ['support'] }, 'agent.childAgents[0]'],
      [
        { displayName: 'x', remoteDialogflowAgent: { agent: 'projects/p/locations/l/agents/a' } },
        'agent.remoteDialogflowAgent',
      ],
      [{ description: 'no display name' }, 'agent.displayName'],
      [{ displayName: 'x', modelSettings: { model: 'gemini-2.5-flash' } }, 'agent.modelSettings.model'],
      [{ displayName: 'x', modelSettings: { temperature: 3 } }, 'agent.modelSettings.temperature'],
      [{ displayName: 'x', instructions: 'typo of instruction' }, 'agent.instructions'],
    ];
    for (const [body, field] of cases) {
      const error = expectGoogleError(
        await baton.request('POST', `${AGENTS}?agentId=refused`, body),
        400,
        'INVALID_ARGUMENT',
      );
      expect(violatedField(error), JSON.stringify(body)).toBe(field);
    }
    expectGoogleError(await read(baton, `${APP}/agents/refused`), 404, 'NOT_FOUND');
  });

  it('a stale etag is ABORTED on update and delete, e.g. after an edit through the native API', async () => {
    const agent = await created(baton, `${AGENTS}?agentId=raced`, { displayName: 'Raced' });
    expect(
      (await baton.request('PUT', '/v1/agents/raced', { model: 'scripted:auto', instructions: 'native edit' })).status,
    ).toBe(200);
    const current = (await read(baton, agent.name)).body;
    expectGoogleError(
      await baton.request('PATCH', `/v1/${agent.name}?updateMask=displayName`, {
        displayName: 'Mine',
        etag: agent.etag,
      }),
      409,
      'ABORTED',
    );
    expectGoogleError(
      await baton.request('DELETE', `/v1/${agent.name}?etag=${encodeURIComponent(agent.etag)}`),
      409,
      'ABORTED',
    );
    expect((await read(baton, agent.name)).body).toEqual(current);
  });

  it("deleting the app's root agent or another agent's child is FAILED_PRECONDITION unless force clears the references", async () => {
    await created(baton, `${AGENTS}?agentId=root`, { displayName: 'Root' });
    await created(baton, `${AGENTS}?agentId=parent`, {
      displayName: 'Parent',
      childAgents: [`${APP}/agents/root`, `${APP}/agents/support`],
    });
    expect(
      (await baton.request('PATCH', `/v1/${APP}?updateMask=rootAgent`, { rootAgent: `${APP}/agents/root` })).status,
    ).toBe(200);

    const error = expectGoogleError(await baton.request('DELETE', `${AGENTS}/root`), 400, 'FAILED_PRECONDITION');
    expect(error.message).toContain(`${APP} (rootAgent)`);
    expect(error.message).toContain(`${APP}/agents/parent (childAgents)`);
    expect((await read(baton, `${APP}/agents/root`)).status).toBe(200);

    expect((await baton.request('DELETE', `${AGENTS}/root?force=true`)).status).toBe(200);
    expectGoogleError(await read(baton, `${APP}/agents/root`), 404, 'NOT_FOUND');
    expect((await read(baton, APP)).body.rootAgent).toBeUndefined();
    expect((await read(baton, `${APP}/agents/parent`)).body.childAgents).toEqual([`${APP}/agents/support`]);
  });

  it('accepts the end_session system tool, which exists in every app without being created', async () => {
    const agent = await created(baton, `${AGENTS}?agentId=closer`, {
      displayName: 'Closer',
      tools: [`${APP}/tools/end_session`],
    });
    expect(agent.tools).toEqual([`${APP}/tools/end_session`]);
    const missing = await baton.request('POST', `${AGENTS}?agentId=closer2`, {
      displayName: 'Closer 2',
      tools: [`${APP}/tools/end_sessions`],
    });
    expect(violatedField(expectGoogleError(missing, 400, 'INVALID_ARGUMENT'))).toBe('agent.tools[0]');
  });
});
