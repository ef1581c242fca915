import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { chatCompletionChunks, startFakeOpenAIServer, type FakeOpenAIServer } from '../models/fake-openai-server.ts';

/**
 * An Idempotency-Key refused because the conversation was busy (`thread_busy`) is not bound to
 * that refusal: the same request with the same key runs once the running turn has ended. (After a
 * crash on PostgreSQL, the retry otherwise got the stored 409 forever.)
 */
describe('Idempotency-Key and a busy conversation', () => {
  let fake: FakeOpenAIServer;
  let baton: TestBaton;
  let open: () => void = () => {};

  beforeAll(async () => {
    fake = await startFakeOpenAIServer(async (request) => {
      // The first model call waits until the test opens the gate: its turn keeps the thread busy.
      if (request.index === 0) await new Promise<void>((resolve) => (open = resolve));
      return { kind: 'sse', events: chatCompletionChunks({ text: `answer ${request.index}` }) };
    });
    baton = await startTestBaton({
      providers: { 'openai-compatible': { baseURL: fake.baseURL } },
      agents: [{ name: 'slow', model: 'openai-compatible:m' }],
    });
  });
  afterAll(async () => {
    open();
    await baton?.close();
    await fake?.close();
  });

  it('frees the key of a thread_busy refusal, so its retry runs once the turn ended', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'slow' })).body.id;
    const path = `/v1/threads/${thread}/messages`;
    const running = baton.request('POST', path, { content: 'first' });
    await expect.poll(() => fake.requests.length).toBe(1);

    const key = { 'idempotency-key': 'second-message' };
    const refused = await baton.request('POST', path, { content: 'second' }, key);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('thread_busy');

    open();
    expect((await running).status).toBe(200);
    const retried = await baton.request('POST', path, { content: 'second' }, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.choices[0].message.content).toBe('answer 1');
    // Now the key is bound to that answer.
    const replayed = await baton.request('POST', path, { content: 'second' }, key);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(retried.body);
  });
});
