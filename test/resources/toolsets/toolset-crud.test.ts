import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created, expectGoogleError, mcpToolset, read, violatedField } from '../../faces/ces/ces-test-client.ts';

const TOOLSETS = `/v1/${APP}/toolsets`;

describe('CES toolsets: create, read, update, delete', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('creates with a chosen id, ignoring the name and output-only fields of the body', async () => {
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=crm`, {
      ...mcpToolset('CRM'),
      name: `${APP}/toolsets/elsewhere`,
      createTime: '2000-01-01T00:00:00Z',
      description: 'Customer records',
      timeout: '20s',
    });
    expect(toolset).toEqual({
      name: `${APP}/toolsets/crm`,
      displayName: 'CRM',
      description: 'Customer records',
      timeout: '20s',
      mcpToolset: { serverAddress: 'https://tools.example.com/mcp/' },
      createTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updateTime: toolset.createTime,
      etag: expect.stringMatching(/^".+"$/),
    });
    expect(toolset.createTime).not.toBe('2000-01-01T00:00:00Z');
    expect((await read(baton, toolset.name)).body).toEqual(toolset);
  });

  it('generates a short lowercase id when toolsetId is absent', async () => {
    const toolset = await created(baton, TOOLSETS, {
      displayName: 'Billing',
      openApiToolset: {
        openApiSchema:
          'openapi: 3.0.0\ninfo: {title: b, version: "1"}\nservers: [{url: "https://api.example.com"}]\npaths: {}',
      },
    });
    expect(toolset.name).toMatch(new RegExp(`^${APP}/toolsets/[a-z][a-z0-9]{11}$`));
  });

  it('updates only the masked fields; a path into the union replaces its member', async () => {
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=masked`, {
      ...mcpToolset('Masked'),
      description: 'before',
      timeout: '5s',
    });
    const response = await baton.request(
      'PATCH',
      `/v1/${toolset.name}?updateMask=description,mcpToolset.serverAddress`,
      {
        description: 'after',
        timeout: '99s',
        mcpToolset: { serverAddress: 'https://other.example.com/mcp/' },
      },
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      description: 'after',
      timeout: '5s',
      mcpToolset: { serverAddress: 'https://other.example.com/mcp/' },
    });
    expect(response.body.etag).not.toBe(toolset.etag);
    expect(response.body.updateTime >= toolset.updateTime).toBe(true);

    const switched = await baton.request('PATCH', `/v1/${toolset.name}?updateMask=openApiToolset`, {
      openApiToolset: {
        openApiSchema: '{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{}}',
        url: 'https://api.example.com',
      },
    });
    expect(switched.status).toBe(200);
    expect(switched.body.mcpToolset).toBeUndefined();
    expect(switched.body.openApiToolset).toEqual({
      openApiSchema: '{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{}}',
      url: 'https://api.example.com',
    });
  });

  it('without a mask replaces every field (CES semantics), clearing what the body leaves out', async () => {
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=whole`, {
      ...mcpToolset('Whole'),
      description: 'gone soon',
      timeout: '7s',
    });
    const response = await baton.request(
      'PATCH',
      `/v1/${toolset.name}`,
      mcpToolset('Whole again', 'http://localhost:9000/mcp/'),
    );
    expect(response.status).toBe(200);
    expect(response.body.description).toBeUndefined();
    expect(response.body.timeout).toBeUndefined();
    expect(response.body).toMatchObject({
      displayName: 'Whole again',
      mcpToolset: { serverAddress: 'http://localhost:9000/mcp/' },
    });
  });

  it('deletes, then the toolset is NOT_FOUND', async () => {
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=doomed`, mcpToolset('Doomed'));
    const deleted = await baton.request('DELETE', `/v1/${toolset.name}`);
    expect(deleted).toMatchObject({ status: 200, body: {} });
    const error = expectGoogleError(await read(baton, toolset.name), 404, 'NOT_FOUND');
    expect(error.message).toContain(`${APP}/toolsets/doomed`);
  });

  it('a duplicate toolsetId is ALREADY_EXISTS and leaves the first untouched', async () => {
    const first = await created(baton, `${TOOLSETS}?toolsetId=twice`, mcpToolset('Twice'));
    const error = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolsetId=twice`, mcpToolset('Twice B')),
      409,
      'ALREADY_EXISTS',
    );
    expect(violatedField(error)).toBe('toolsetId');
    expect((await read(baton, first.name)).body).toEqual(first);
  });

  it('a displayName already used in the app is ALREADY_EXISTS, on create and on update', async () => {
    await created(baton, `${TOOLSETS}?toolsetId=named`, mcpToolset('Unique name'));
    const error = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolsetId=named2`, mcpToolset('Unique name')),
      409,
      'ALREADY_EXISTS',
    );
    expect(violatedField(error)).toBe('toolset.displayName');
    expectGoogleError(await read(baton, `${APP}/toolsets/named2`), 404, 'NOT_FOUND');

    const other = await created(baton, `${TOOLSETS}?toolsetId=named3`, mcpToolset('Another name'));
    expectGoogleError(
      await baton.request('PATCH', `/v1/${other.name}?updateMask=displayName`, { displayName: 'Unique name' }),
      409,
      'ALREADY_EXISTS',
    );
    expect((await read(baton, other.name)).body).toEqual(other);
  });

  it('two members of toolset_type at once is INVALID_ARGUMENT', async () => {
    const body = {
      displayName: 'Both',
      mcpToolset: { serverAddress: 'https://a.example/mcp/' },
      openApiToolset: { openApiSchema: '{}' },
    };
    const error = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolsetId=both`, body),
      400,
      'INVALID_ARGUMENT',
    );
    expect(error.message).toMatch(/mcpToolset.*openApiToolset/);
    expectGoogleError(await read(baton, `${APP}/toolsets/both`), 404, 'NOT_FOUND');
  });

  it('an update mask naming an unknown field is INVALID_ARGUMENT and changes nothing', async () => {
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=maskbad`, mcpToolset('Mask bad'));
    const error = expectGoogleError(
      await baton.request('PATCH', `/v1/${toolset.name}?updateMask=displayName,colour`, { displayName: 'x' }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(error)).toBe('updateMask');
    expect(error.message).toContain('colour');
    expect((await read(baton, toolset.name)).body).toEqual(toolset);
  });

  it('a stale etag is ABORTED on update and on delete; the current one works', async () => {
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=etagged`, mcpToolset('Etagged'));
    const fresh = await baton.request('PATCH', `/v1/${toolset.name}?updateMask=description`, {
      description: 'v2',
      etag: toolset.etag,
    });
    expect(fresh.status).toBe(200);

    const stale = expectGoogleError(
      await baton.request('PATCH', `/v1/${toolset.name}?updateMask=description`, {
        description: 'v3',
        etag: toolset.etag,
      }),
      409,
      'ABORTED',
    );
    expect(stale.message).toContain('read it again');
    expectGoogleError(
      await baton.request('DELETE', `/v1/${toolset.name}?etag=${encodeURIComponent(toolset.etag)}`),
      409,
      'ABORTED',
    );
    expect((await read(baton, toolset.name)).body).toEqual(fresh.body);

    // An empty etag means the last write wins.
    expect(
      (await baton.request('PATCH', `/v1/${toolset.name}?updateMask=description`, { description: 'v4', etag: '' }))
        .status,
    ).toBe(200);
    const latest = (await read(baton, toolset.name)).body;
    expect((await baton.request('DELETE', `/v1/${toolset.name}?etag=${encodeURIComponent(latest.etag)}`)).status).toBe(
      200,
    );
  });

  it('refuses connectorToolset with a clear message', async () => {
    const error = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolsetId=connector`, {
        displayName: 'SAP',
        connectorToolset: { connection: 'projects/p/locations/l/connections/c' },
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(error.message).toBe(
      'connectorToolset is not supported by Baton (Integration Connectors are a Google Cloud service); use openApiToolset or mcpToolset.',
    );
    expect(violatedField(error)).toBe('toolset.connectorToolset');
    expectGoogleError(await read(baton, `${APP}/toolsets/connector`), 404, 'NOT_FOUND');
  });

  it('checks members deeply: a serverAddress that is no URL, a header that is not a session variable, unknown fields', async () => {
    const cases: [object, string][] = [
      [{ mcpToolset: { serverAddress: 'ftp://x' } }, 'toolset.mcpToolset.serverAddress'],
      [{ mcpToolset: {} }, 'toolset.mcpToolset.serverAddress'],
      [
        { mcpToolset: { serverAddress: 'https://x.example/mcp/', customHeaders: { 'x-token': 'abc' } } },
        'toolset.mcpToolset.customHeaders.x-token',
      ],
      [
        { mcpToolset: { serverAddress: 'https://x.example/mcp/', serverAdress: 'typo' } },
        'toolset.mcpToolset.serverAdress',
      ],
      [{ mcpToolset: { serverAddress: 'https://x.example/mcp/' }, timeout: '30' }, 'toolset.timeout'],
      [
        {
          mcpToolset: { serverAddress: 'https://x.example/mcp/' },
          toolFakeConfig: { codeBlock: { pythonCode: 'def f(): pass' } },
        },
        'toolset.toolFakeConfig.codeBlock.pythonCode',
      ],
      [{}, 'toolset'],
    ];
    for (const [body, field] of cases) {
      const error = expectGoogleError(
        await baton.request('POST', `${TOOLSETS}?toolsetId=deep`, body),
        400,
        'INVALID_ARGUMENT',
      );
      expect(violatedField(error), JSON.stringify(body)).toBe(field);
    }
    expectGoogleError(await read(baton, `${APP}/toolsets/deep`), 404, 'NOT_FOUND');
  });

  it('keeps overrides but not their output-only snapshot', async () => {
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=overrides`, {
      mcpToolset: {
        serverAddress: 'https://x.example/mcp/',
        toolOverrides: [{ tool: 'search', nameOverride: 'find', snapshot: { description: 'server copy' } }],
      },
    });
    expect(toolset.mcpToolset.toolOverrides).toEqual([{ tool: 'search', nameOverride: 'find' }]);
  });
});
