import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { chatCompletionChunks, startFakeOpenAIServer, type FakeOpenAIServer } from '../models/fake-openai-server.ts';
import { APP, seedStoreAgent, sessionPrograms } from '../faces/ces/sessions/session-fixtures.ts';
import { bearer, createApp, eventually, lowLimits } from './limit-fixtures.ts';

/**
 * Running turns per app, on a real server: the `slow` agent's model (a local fake provider)
 * answers only when the test opens its gate, so a turn stays running as long as the test needs.
 */
describe('running turns per app', () => {
  let fake: FakeOpenAIServer;
  let server: TestBaton;
  let other: { id: string; key: string };
  let openGate: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    fake = await startFakeOpenAIServer(async () => {
      await gate;
      return { kind: 'sse', events: chatCompletionChunks({ text: 'Done at last.' }) };
    });
    server = await startTestBaton({
      providers: { 'openai-compatible': { baseURL: fake.baseURL } },
      scripted: sessionPrograms,
      agents: [DEMO_AGENT, { name: 'slow', model: 'openai-compatible:test-model', instructions: 'Take your time.' }],
      limits: lowLimits({ turnsPerApp: 1, turnsTotal: 10 }),
    });
    await seedStoreAgent(server);
    other = await createApp(server, 'other-app');
  });
  afterAll(async () => {
    openGate();
    await server?.close();
    await fake?.close();
  });
  beforeEach(() => {
    gate = new Promise((resolve) => (openGate = resolve));
  });

  async function newThread(agent: string): Promise<string> {
    return (await server.request('POST', '/v1/threads', { agent })).body.id as string;
  }

  /** Starts a `slow` turn of the default app and waits until its model call is held at the gate. */
  async function holdOneTurn(): Promise<{ running: Promise<unknown> }> {
    const before = fake.requests.length;
    const running = server.request('POST', `/v1/threads/${await newThread('slow')}/messages`, { content: 'hi' });
    await eventually(async () => fake.requests.length > before, 'the slow turn reached its model');
    // Wrapped: an async function returning a promise would wait for it.
    return { running };
  }

  it('a turn past the app’s cap is refused in each face’s format with Retry-After; another app still runs', async () => {
    const { running } = await holdOneTurn();

    const thread = await newThread('refund-desk');
    const threads = await server.request('POST', `/v1/threads/${thread}/messages`, { content: 'hello' });
    expect(threads.status).toBe(429);
    expect(threads.headers.get('retry-after')).toBe('2');
    expect(threads.body.error).toMatchObject({
      code: 'too_many_turns',
      message: expect.stringMatching(/turns_per_app/),
    });
    expect((await server.request('GET', `/v1/threads/${thread}/messages`)).body.data).toEqual([]);

    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
    const responses = await client.responses.create({ model: 'scripted:auto', input: 'hello' }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(responses).toBeInstanceOf(OpenAI.RateLimitError);
    expect(responses).toMatchObject({ status: 429, code: 'too_many_turns' });

    const ces = await server.request('POST', `/v1/${APP}/sessions/busy-app:runSession`, {
      config: { session: `${APP}/sessions/busy-app` },
      inputs: [{ text: 'hello' }],
    });
    expect(ces.status).toBe(429);
    expect(ces.headers.get('retry-after')).toBe('2');
    expect(ces.body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(ces.body.error.details[0]).toMatchObject({ reason: 'TOO_MANY_TURNS' });

    const theirs = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: other.key, maxRetries: 0 });
    const answered = await theirs.responses.create({ model: 'scripted:auto', input: 'hello' });
    expect(answered.status).toBe('completed');

    openGate();
    expect(await running).toMatchObject({ status: 200 });
    const again = await server.request('POST', `/v1/threads/${thread}/messages`, { content: 'hello' });
    expect(again.status).toBe(200);
  });

  it('a 429 frees the Idempotency-Key: the retry with the same key runs', async () => {
    const { running } = await holdOneTurn();
    const thread = await newThread('refund-desk');
    const headers = { 'idempotency-key': 'turn-cap-retry' };
    const refused = await server.request('POST', `/v1/threads/${thread}/messages`, { content: 'hello' }, headers);
    expect(refused.status).toBe(429);
    openGate();
    await running;
    const retried = await server.request('POST', `/v1/threads/${thread}/messages`, { content: 'hello' }, headers);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a background response holds its slot until it ends', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
    const before = fake.requests.length;
    const created = await client.responses.create({ model: 'slow', input: 'hi', background: true });
    await eventually(async () => fake.requests.length > before, 'the background turn reached its model');
    const refused = await server.request('POST', `/v1/threads/${await newThread('refund-desk')}/messages`, {
      content: 'hello',
    });
    expect(refused.body.error?.code).toBe('too_many_turns');
    openGate();
    await eventually(
      async () => (await client.responses.retrieve(created.id)).status === 'completed',
      'the background response completed',
    );
    const admitted = await server.request('POST', `/v1/threads/${await newThread('refund-desk')}/messages`, {
      content: 'hello',
    });
    expect(admitted.status).toBe(200);
  });
});

describe('running turns in all', () => {
  it('the total cap refuses every app, whatever its own count', async () => {
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const fake = await startFakeOpenAIServer(async () => {
      await gate;
      return { kind: 'sse', events: chatCompletionChunks({ text: 'Done.' }) };
    });
    const server = await startTestBaton({
      providers: { 'openai-compatible': { baseURL: fake.baseURL } },
      agents: [DEMO_AGENT, { name: 'slow', model: 'openai-compatible:test-model', instructions: 'Wait.' }],
      limits: lowLimits({ turnsPerApp: 5, turnsTotal: 1 }),
    });
    try {
      const other = await createApp(server, 'other-app');
      const thread = (await server.request('POST', '/v1/threads', { agent: 'slow' })).body.id as string;
      const running = server.request('POST', `/v1/threads/${thread}/messages`, { content: 'hi' });
      await eventually(async () => fake.requests.length > 0, 'the slow turn reached its model');
      const refused = await server.request(
        'POST',
        '/v1/responses',
        { model: 'scripted:auto', input: 'hello' },
        bearer(other.key),
      );
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 'too_many_turns',
        type: 'rate_limit_error',
        message: expect.stringMatching(/turns_total/),
      });
      openGate();
      await running;
    } finally {
      openGate();
      await server.close();
      await fake.close();
    }
  });
});
