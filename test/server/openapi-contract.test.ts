import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton, type TestResponse } from '../helpers/test-baton.ts';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const APP = '/v1/projects/default/locations/global/apps/default';
const APP_PATH = '/v1/projects/{project}/locations/{location}/apps/{app}';

/**
 * Real answers of a running server, each checked against the schema the API document gives for
 * its operation and status: the document describes what the views send, not what they once sent.
 */
describe('the API document describes real answers', () => {
  let server: TestBaton;
  let ajv: Ajv2020;
  const validators = new Map<string, ValidateFunction>();

  beforeAll(async () => {
    server = await startTestBaton();
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, unknown>;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: 'baton:openapi' });
  });
  afterAll(async () => server?.close());

  const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

  /** Checks `response` against the document's schema for `method path` at its status (or 4XX/5XX). */
  function expectDocumented(method: string, path: string, response: TestResponse, mediaType = 'application/json') {
    const status = String(response.status);
    const key = `${method} ${path} ${status}`;
    let validate = validators.get(key);
    if (!validate) {
      const operation = `baton:openapi#/paths/${pointer(path)}/${method.toLowerCase()}/responses`;
      const content = `content/${pointer(mediaType)}/schema`;
      // An explicit status, else its range.
      const explicit = ajv.getSchema(`${operation}/${status}/${content}`) ? status : `${status[0]}XX`;
      validate = ajv.compile({ $ref: `${operation}/${explicit}/${content}` });
      validators.set(key, validate);
    }
    const valid = validate(response.body);
    expect(valid ? [] : validate.errors, `${key}: ${JSON.stringify(response.body).slice(0, 400)}`).toEqual([]);
  }

  it('refuses an answer the document does not describe (the check is not vacuous)', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const { status: _status, ...withoutStatus } = thread.body as Record<string, unknown>;
    expect(() => expectDocumented('POST', '/v1/threads', { ...thread, body: withoutStatus })).toThrow();
    expect(() =>
      expectDocumented('POST', '/v1/threads', { ...thread, status: 404, body: { error: { message: 'no code' } } }),
    ).toThrow();
  });

  it('Threads and the ledger: the seed round trip, a cancel and the errors', async () => {
    const created = await server.request('POST', '/v1/threads', { agent: 'refund-desk', metadata: { user: 'u1' } });
    expectDocumented('POST', '/v1/threads', created);
    const threadId = created.body.id as string;
    const paused = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: 'I need approval to process a $500 refund',
    });
    expect(paused.body.choices[0].finish_reason).toBe('tool_use');
    expectDocumented('POST', '/v1/threads/{id}/messages', paused);
    const callId = paused.body.choices[0].message.tool_calls[0].id as string;

    expectDocumented('GET', '/v1/threads/{id}', await server.request('GET', `/v1/threads/${threadId}`));
    expectDocumented('GET', '/v1/threads', await server.request('GET', '/v1/threads?limit=5'));
    expectDocumented('GET', '/v1/tool-calls', await server.request('GET', '/v1/tool-calls?state=pending'));
    expectDocumented('GET', '/v1/tool-calls/{id}', await server.request('GET', `/v1/tool-calls/${callId}`));
    expectDocumented('GET', '/v1/tool-calls/{id}/tool', await server.request('GET', `/v1/tool-calls/${callId}/tool`));
    const busy = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'hello?' });
    expect(busy.status).toBe(409);
    expectDocumented('POST', '/v1/threads/{id}/messages', busy);

    const submitted = await server.request('POST', `/v1/tool-calls/${callId}/result`, {
      content: '{"approved": true, "approved_by": "manager@company.com"}',
    });
    expect(submitted.body.resumed).toBe(true);
    expectDocumented('POST', '/v1/tool-calls/{id}/result', submitted);
    expectDocumented(
      'GET',
      '/v1/threads/{id}/messages',
      await server.request('GET', `/v1/threads/${threadId}/messages`),
    );

    const other = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id as string;
    await server.request('POST', `/v1/threads/${other}/messages`, { content: 'Refund $20 please' });
    expectDocumented('POST', '/v1/threads/{id}/cancel', await server.request('POST', `/v1/threads/${other}/cancel`));

    const missing = await server.request('GET', '/v1/threads/thread_nope');
    expect(missing.status).toBe(404);
    expectDocumented('GET', '/v1/threads/{id}', missing);
    const badBody = await server.request('POST', '/v1/threads', { agent: 'refund-desk', colour: 'red' });
    expect(badBody.status).toBe(400);
    expectDocumented('POST', '/v1/threads', badBody);
  });

  it('agents, apps and keys', async () => {
    const agent = { name: 'contract-agent', model: 'scripted:auto', instructions: 'Help.' };
    expectDocumented('POST', '/v1/agents', await server.request('POST', '/v1/agents', agent));
    expectDocumented('GET', '/v1/agents', await server.request('GET', '/v1/agents'));
    expectDocumented('GET', '/v1/agents/{name}', await server.request('GET', '/v1/agents/contract-agent'));
    const replaced = await server.request('PUT', '/v1/agents/contract-agent', { ...agent, instructions: 'Help more.' });
    expectDocumented('PUT', '/v1/agents/{name}', replaced);
    expectDocumented('DELETE', '/v1/agents/{name}', await server.request('DELETE', '/v1/agents/contract-agent'));

    expectDocumented('GET', '/v1/me', await server.request('GET', '/v1/me'));
    expectDocumented('POST', '/v1/apps', await server.request('POST', '/v1/apps', { name: 'contract-shop' }));
    const key = await server.request('POST', '/v1/api-keys', { name: 'ci', role: 'reader' });
    expectDocumented('POST', '/v1/api-keys', key);
    expectDocumented('GET', '/v1/api-keys', await server.request('GET', '/v1/api-keys'));
    const rotated = await server.request('POST', `/v1/api-keys/${key.body.id}/rotate`, { grace_seconds: 0 });
    expectDocumented('POST', '/v1/api-keys/{id}/rotate', rotated);
    expectDocumented('DELETE', '/v1/api-keys/{id}', await server.request('DELETE', `/v1/api-keys/${rotated.body.id}`));
  });

  it('CES resources, a session with a client function, and conversations', async () => {
    expectDocumented(
      'GET',
      '/v1/projects/{project}/locations/{location}/apps',
      await server.request('GET', '/v1/projects/default/locations/global/apps'),
    );
    expectDocumented('GET', APP_PATH, await server.request('GET', APP));
    const tool = await server.request('POST', `${APP}/tools?toolId=nearest-store`, {
      clientFunction: {
        name: 'get_nearest_store',
        description: 'Nearest store to a US zip code.',
        parameters: { type: 'OBJECT', properties: { zip_code: { type: 'STRING' } }, required: ['zip_code'] },
      },
    });
    expect(tool.status).toBe(200);
    expectDocumented('POST', `${APP_PATH}/tools`, tool);
    expectDocumented('GET', `${APP_PATH}/tools`, await server.request('GET', `${APP}/tools`));
    expectDocumented('GET', `${APP_PATH}/tools/{id}`, await server.request('GET', `${APP}/tools/nearest-store`));
    const patched = await server.request('PATCH', `${APP}/tools/nearest-store?updateMask=clientFunction.description`, {
      clientFunction: { name: 'get_nearest_store', description: 'The nearest store.' },
    });
    expectDocumented('PATCH', `${APP_PATH}/tools/{id}`, patched);
    const secret = await server.request('POST', `${APP}/secrets?secretId=contract-key`, { value: 's3cret' });
    expectDocumented('POST', `${APP_PATH}/secrets`, secret);
    expectDocumented('GET', `${APP_PATH}/secrets/{id}`, await server.request('GET', `${APP}/secrets/contract-key`));

    const agent = await server.request('POST', `${APP}/agents?agentId=store-finder`, {
      displayName: 'Store finder',
      instruction: 'Find the nearest store with get_nearest_store.',
      modelSettings: { model: 'scripted:auto' },
      tools: [`${APP.slice(4)}/tools/nearest-store`],
    });
    expectDocumented('POST', `${APP_PATH}/agents`, agent);
    const run = await server.request('POST', `${APP}/sessions/contract-1:runSession`, {
      config: { session: `${APP.slice(4)}/sessions/contract-1`, entryAgent: `${APP.slice(4)}/agents/store-finder` },
      inputs: [{ text: 'Where is the nearest store to 92031?' }],
    });
    expect(run.status).toBe(200);
    expect(run.body.outputs[0].toolCalls).toBeDefined();
    expectDocumented('POST', `${APP_PATH}/sessions/{session}:runSession`, run);
    expectDocumented('GET', `${APP_PATH}/conversations`, await server.request('GET', `${APP}/conversations`));
    const conversation = await server.request('GET', `${APP}/conversations/contract-1`);
    expectDocumented('GET', `${APP_PATH}/conversations/{conversation}`, conversation);
    const deleted = await server.request('DELETE', `${APP}/conversations/contract-1`);
    expectDocumented('DELETE', `${APP_PATH}/conversations/{conversation}`, deleted);

    const notFound = await server.request('GET', `${APP}/tools/no-such-tool`);
    expect(notFound.status).toBe(404);
    expectDocumented('GET', `${APP_PATH}/tools/{id}`, notFound);
    expectDocumented(
      'DELETE',
      `${APP_PATH}/tools/{id}`,
      await server.request('DELETE', `${APP}/tools/nearest-store?force=true`),
    );
  });

  it('Chat Completions, models and Responses', async () => {
    const completion = await server.request('POST', '/v1/chat/completions', {
      model: 'refund-desk',
      messages: [{ role: 'user', content: 'I need approval to process a $500 refund' }],
    });
    expect(completion.status).toBe(200);
    expectDocumented('POST', '/v1/chat/completions', completion);
    expectDocumented('GET', '/v1/models', await server.request('GET', '/v1/models'));
    expectDocumented('GET', '/v1/models/{model}', await server.request('GET', '/v1/models/refund-desk'));
    const unknownModel = await server.request('GET', '/v1/models/no-such-model');
    expect(unknownModel.status).toBe(404);
    expectDocumented('GET', '/v1/models/{model}', unknownModel);

    const response = await server.request('POST', '/v1/responses', { model: 'refund-desk', input: 'Hello' });
    expect(response.status).toBe(200);
    expectDocumented('POST', '/v1/responses', response);
    expectDocumented('GET', '/v1/responses/{id}', await server.request('GET', `/v1/responses/${response.body.id}`));
    const items = await server.request('GET', `/v1/responses/${response.body.id}/input_items`);
    expectDocumented('GET', '/v1/responses/{id}/input_items', items);
    expectDocumented(
      'DELETE',
      '/v1/responses/{id}',
      await server.request('DELETE', `/v1/responses/${response.body.id}`),
    );
  });

  it('the operational endpoints and /mcp', async () => {
    expectDocumented('GET', '/healthz', await server.request('GET', '/healthz'));
    expectDocumented('GET', '/readyz', await server.request('GET', '/readyz'));
    const mcp = await server.request(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      {
        accept: 'application/json, text/event-stream',
      },
    );
    expect(mcp.status).toBe(200);
    expectDocumented('POST', '/mcp', mcp);
    const refused = await server.request('GET', '/mcp', undefined, { accept: 'text/event-stream' });
    expect(refused.status).toBe(405);
    expectDocumented('GET', '/mcp', refused);
  });
});
