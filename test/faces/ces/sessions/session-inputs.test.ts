import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../../helpers/test-baton.ts';
import { APP, runSession, seedStoreAgent, sessionPrograms } from './session-fixtures.ts';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The other session inputs (event, image, blob, variables) and retries with an Idempotency-Key. */
describe('CES sessions: inputs and retries', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({ scripted: sessionPrograms });
    await seedStoreAgent(server);
  });
  afterAll(async () => server.close());

  it('records event, image, blob and text inputs of one request as one user message, and merges variables', async () => {
    const response = await runSession(server, 'inputs', [
      { variables: { tier: 'gold' } },
      { event: { event: 'welcome' } },
      { image: { mimeType: 'image/png', data: PIXEL } },
      { blob: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK' } },
      { text: 'hello' },
    ]);
    expect(response.status).toBe(200);
    expect(response.body.outputs).toEqual([{ text: 'How can I help?', turnIndex: 1, turnCompleted: true }]);
    const session = await server.baton.store.sessions.get(server.baton.defaultAppId, 'inputs');
    expect(session?.variables).toEqual({ tier: 'gold' });
    await runSession(server, 'inputs', [{ variables: { locale: 'pt-BR' } }]);
    expect((await server.baton.store.sessions.get(server.baton.defaultAppId, 'inputs'))?.variables).toEqual({
      tier: 'gold',
      locale: 'pt-BR',
    });

    const conversation = await server.request('GET', `/v1/${APP}/conversations/inputs`);
    expect(conversation.body.turns[0].messages[0]).toMatchObject({
      role: 'user',
      chunks: [
        { text: '[event] welcome' },
        { image: { mimeType: 'image/png', data: PIXEL } },
        { blob: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK' } },
        { text: 'hello' },
      ],
    });
    expect(conversation.body.inputTypes).toEqual(
      expect.arrayContaining(['INPUT_TYPE_EVENT', 'INPUT_TYPE_IMAGE', 'INPUT_TYPE_BLOB', 'INPUT_TYPE_TEXT']),
    );
    // Only the request that ran the agent counts as a turn.
    expect(conversation.body.turnCount).toBe(1);
  });

  it('refuses an image that is not an image, and data that is not base64', async () => {
    const notImage = await runSession(server, 'inputs-bad', [
      { image: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK' } },
    ]);
    expect(notImage.body.error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringContaining('blob') });
    const notBase64 = await runSession(server, 'inputs-bad', [
      { blob: { mimeType: 'text/plain', data: 'not base64!' } },
    ]);
    expect(notBase64.body.error.status).toBe('INVALID_ARGUMENT');
  });

  it('replays a retried runSession with the same Idempotency-Key instead of running it twice', async () => {
    const body = { config: { session: `${APP}/sessions/retried` }, inputs: [{ text: 'hi' }] };
    const first = await server.request('POST', `/v1/${APP}/sessions/retried:runSession`, body, {
      'idempotency-key': 'retry-1',
    });
    const again = await server.request('POST', `/v1/${APP}/sessions/retried:runSession`, body, {
      'idempotency-key': 'retry-1',
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const conversation = await server.request('GET', `/v1/${APP}/conversations/retried`);
    expect(conversation.body.turnCount).toBe(1);

    const streamBody = { config: { session: `${APP}/sessions/retried-stream` }, inputs: [{ text: 'hi' }] };
    const streamed = await fetch(`${server.url}/v1/${APP}/sessions/retried-stream:streamRunSession`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.key}`,
        'content-type': 'application/json',
        'idempotency-key': 'retry-2',
      },
      body: JSON.stringify(streamBody),
    });
    expect(await streamed.text()).toContain('How can I help?');
    const replay = await server.request('POST', `/v1/${APP}/sessions/retried-stream:streamRunSession`, streamBody, {
      'idempotency-key': 'retry-2',
    });
    expect(replay.body).toEqual({ outputs: [{ text: 'How can I help?', turnIndex: 1, turnCompleted: true }] });
  });
});
