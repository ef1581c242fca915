import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../../helpers/test-baton.ts';
import {
  chatCompletionChunks,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../../../models/fake-openai-server.ts';
import { APP, runSession, seedStoreAgent, sessionPrograms, toolResponse } from './session-fixtures.ts';

function expectStatus(response: { status: number; body: any }, http: number, status: string): void {
  expect(response.status).toBe(http);
  expect(response.body.error).toMatchObject({ code: http, status });
  expect(typeof response.body.error.message).toBe('string');
  expect(Array.isArray(response.body.error.details)).toBe(true);
}

/** Every refused session request is a google.rpc.Status and leaves the session as it was. */
describe('CES sessions: bad input', () => {
  let server: TestBaton;
  let fake: FakeOpenAIServer;
  let releaseModel: () => void = () => {};
  let modelCalled: () => void = () => {};

  beforeAll(async () => {
    // A model that answers only when the test says so, to hold a turn open.
    fake = await startFakeOpenAIServer(async () => {
      modelCalled();
      await new Promise<void>((resolve) => {
        releaseModel = resolve;
      });
      return { kind: 'sse', events: chatCompletionChunks({ text: 'done' }) };
    });
    server = await startTestBaton({
      scripted: sessionPrograms,
      providers: { 'openai-compatible': { baseURL: fake.baseURL } },
    });
    await seedStoreAgent(server);
    await seedStoreAgent(server, 'slow', 'openai-compatible:test-model', false);
  });
  afterAll(async () => {
    releaseModel();
    await server.close();
    await fake.close();
  });

  it('refuses two members in one input, audio, a session name that is not the URL, and unknown fields', async () => {
    expectStatus(
      await runSession(server, 'bad-1', [{ text: 'hi', event: { event: 'welcome' } }]),
      400,
      'INVALID_ARGUMENT',
    );
    expectStatus(await runSession(server, 'bad-1', [{ audio: 'AAAA' }]), 400, 'INVALID_ARGUMENT');
    const mismatch = await server.request('POST', `/v1/${APP}/sessions/bad-1:runSession`, {
      config: { session: `${APP}/sessions/other` },
      inputs: [{ text: 'hi' }],
    });
    expectStatus(mismatch, 400, 'INVALID_ARGUMENT');
    const unknown = await server.request('POST', `/v1/${APP}/sessions/bad-1:runSession`, {
      config: { session: `${APP}/sessions/bad-1` },
      inputs: [{ text: 'hi' }],
      extra: 1,
    });
    expectStatus(unknown, 400, 'INVALID_ARGUMENT');
    expect(unknown.body.error.message).toContain('extra');
    expectStatus(
      await server.request('POST', `/v1/${APP}/sessions/bad-1:runSesion`, { config: {}, inputs: [] }),
      404,
      'NOT_FOUND',
    );
    // None of it created the session.
    expectStatus(await server.request('GET', `/v1/${APP}/conversations/bad-1`), 404, 'NOT_FOUND');
  });

  it('refuses a toolResponse with an unknown id or a mismatched tool or displayName, and keeps the call pending', async () => {
    const first = await runSession(server, 'bad-2', [{ text: 'nearest store?' }]);
    const call = first.body.outputs[0].toolCalls.toolCalls[0];
    const unknown = await runSession(server, 'bad-2', [
      { toolResponses: { toolResponses: [toolResponse({ ...call, id: 'call_nope' }, { output: 1 })] } },
    ]);
    expectStatus(unknown, 400, 'INVALID_ARGUMENT');
    expect(unknown.body.error.message).toContain(call.id);
    const wrongTool = await runSession(server, 'bad-2', [
      { toolResponses: { toolResponses: [toolResponse({ ...call, tool: `${APP}/tools/other` }, { output: 1 })] } },
    ]);
    expectStatus(wrongTool, 400, 'INVALID_ARGUMENT');
    expect(wrongTool.body.error.message).toContain(call.tool);
    const wrongName = await runSession(server, 'bad-2', [
      { toolResponses: { toolResponses: [toolResponse({ ...call, displayName: 'other' }, { output: 1 })] } },
    ]);
    expectStatus(wrongName, 400, 'INVALID_ARGUMENT');
    const twice = await runSession(server, 'bad-2', [
      { toolResponses: { toolResponses: [toolResponse(call, { output: 1 }), toolResponse(call, { output: 2 })] } },
    ]);
    expectStatus(twice, 400, 'INVALID_ARGUMENT');
    const entry = await server.request('GET', `/v1/tool-calls/${call.id}`);
    expect(entry.body.state).toBe('pending');
  });

  it('answers a second concurrent runSession on one session with ABORTED', async () => {
    await runSession(server, 'busy', [{ variables: { tier: 'gold' } }], { entryAgent: `${APP}/agents/slow` });
    const called = new Promise<void>((resolve) => {
      modelCalled = resolve;
    });
    const first = runSession(server, 'busy', [{ text: 'first' }]);
    await called;
    const second = await runSession(server, 'busy', [{ text: 'second' }]);
    expectStatus(second, 409, 'ABORTED');
    releaseModel();
    expect((await first).body.outputs).toEqual([{ text: 'done', turnIndex: 1, turnCompleted: true }]);
    const conversation = await server.request('GET', `/v1/${APP}/conversations/busy`);
    expect(JSON.stringify(conversation.body)).not.toContain('second');
  });

  it('needs a rootAgent or entryAgent that exists in the app', async () => {
    const unknownAgent = await runSession(server, 'bad-3', [{ text: 'hi' }], { entryAgent: `${APP}/agents/ghost` });
    expectStatus(unknownAgent, 400, 'INVALID_ARGUMENT');
    const other = await runSession(server, 'bad-3', [{ text: 'hi' }], {
      entryAgent: 'projects/x/locations/y/apps/z/agents/store-finder',
    });
    expectStatus(other, 400, 'INVALID_ARGUMENT');
  });

  it('answers unauthenticated and foreign-app requests in the google.rpc format', async () => {
    const anonymous = await fetch(`${server.url}/v1/${APP}/sessions/x:runSession`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as any).error.status).toBe('UNAUTHENTICATED');
    expectStatus(
      await server.request('POST', '/v1/projects/default/locations/global/apps/nope/sessions/x:runSession', {
        config: { session: 'x' },
        inputs: [{ text: 'a' }],
      }),
      404,
      'NOT_FOUND',
    );
    const badJson = await fetch(`${server.url}/v1/${APP}/sessions/x:runSession`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as any).error.status).toBe('INVALID_ARGUMENT');
  });
});
