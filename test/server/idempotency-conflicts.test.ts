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
  /** The request index of the model call that waits for `open()`: its turn keeps its conversation busy. */
  let held = 0;

  beforeAll(async () => {
    fake = await startFakeOpenAIServer(async (request) => {
      if (request.index === held) await new Promise<void>((resolve) => (open = resolve));
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

  it('frees the key of a previous_response_in_progress refusal, so its retry runs once the response is done', async () => {
    held = fake.requests.length;
    const first = await baton.request('POST', '/v1/responses', { model: 'slow', input: 'first', background: true });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await expect.poll(() => fake.requests.length).toBe(held + 1);

    const key = { 'idempotency-key': 'continue-first' };
    const body = { model: 'slow', input: 'next', previous_response_id: first.body.id };
    const refused = await baton.request('POST', '/v1/responses', body, key);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('previous_response_in_progress');

    open();
    await expect
      .poll(async () => (await baton.request('GET', `/v1/responses/${first.body.id}`)).body.status)
      .toBe('completed');
    const retried = await baton.request('POST', '/v1/responses', body, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.previous_response_id).toBe(first.body.id);
    const replayed = await baton.request('POST', '/v1/responses', body, key);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });
});
