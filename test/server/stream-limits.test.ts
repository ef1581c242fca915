import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP, seedStoreAgent, sessionPrograms } from '../faces/ces/sessions/session-fixtures.ts';
import { bearer, createApp, eventually, lowLimits, openWebSocket } from './limit-fixtures.ts';

/** An open ledger event stream; `close` is the client going away. */
interface OpenStream {
  close(): void;
}

/** A ledger event stream: open (200, its `ready` event read) or refused (the JSON error). */
async function ledgerStream(
  server: TestBaton,
  key: string,
): Promise<
  | { stream: OpenStream; refused: null }
  | { stream: null; refused: { status: number; body: any; retryAfter: string | null } }
> {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/v1/tool-calls/events`, {
    headers: bearer(key),
    signal: controller.signal,
  });
  if (response.status !== 200) {
    const refused = {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.json(),
    };
    return { stream: null, refused };
  }
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('event: ready')) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended before its ready event');
    text += new TextDecoder().decode(value);
  }
  return { stream: { close: () => controller.abort() }, refused: null };
}

/** Opens a ledger stream once the server has noticed that an earlier one closed. */
async function openOnceFree(server: TestBaton, key: string): Promise<OpenStream> {
  let opened: OpenStream | null = null;
  await eventually(async () => {
    opened = (await ledgerStream(server, key)).stream;
    return opened !== null;
  }, 'a stream slot was freed');
  return opened!;
}

function threadStream(server: TestBaton, key: string, threadId: string) {
  return server.request(
    'POST',
    `/v1/threads/${threadId}/messages`,
    { role: 'user', content: 'hello', stream: true },
    bearer(key),
  );
}

describe('open streams per app and in all', () => {
  let server: TestBaton;
  let other: { id: string; key: string };

  beforeAll(async () => {
    server = await startTestBaton({
      scripted: sessionPrograms,
      limits: lowLimits({ streamsPerApp: 2, streamsTotal: 3 }),
    });
    await seedStoreAgent(server);
    other = await createApp(server, 'other-app');
  });
  afterAll(async () => server?.close());

  it('an app at its cap is refused on every kind of stream, in each face’s format, while another app still opens one', async () => {
    const held = [await ledgerStream(server, server.key), await ledgerStream(server, server.key)];
    expect(held.map((open) => open.refused)).toEqual([null, null]);
    try {
      const ledger = await ledgerStream(server, server.key);
      expect(ledger.refused).toMatchObject({
        status: 429,
        retryAfter: '5',
        body: { error: { code: 'too_many_streams', message: expect.stringMatching(/limits\.streams_per_app/) } },
      });

      const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id as string;
      const threads = await threadStream(server, server.key, thread);
      expect(threads.status).toBe(429);
      expect(threads.headers.get('retry-after')).toBe('5');
      expect(threads.body.error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_streams' });
      // Refused before the turn started: the thread took no input.
      expect((await server.request('GET', `/v1/threads/${thread}/messages`)).body.data).toEqual([]);

      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
      const responses = await client.responses.create({ model: 'scripted:auto', input: 'hello', stream: true }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(responses).toBeInstanceOf(OpenAI.RateLimitError);
      expect(responses).toMatchObject({ status: 429, code: 'too_many_streams', type: 'rate_limit_error' });
      expect((responses as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('5');

      const ces = await server.request('POST', `/v1/${APP}/sessions/capped:streamRunSession`, {
        config: { session: `${APP}/sessions/capped` },
        inputs: [{ text: 'store' }],
      });
      expect(ces.status).toBe(429);
      expect(ces.headers.get('retry-after')).toBe('5');
      expect(ces.body.error).toMatchObject({
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TOO_MANY_STREAMS' }],
      });

      const socket = await openWebSocket(server, server.key);
      expect(socket.refused).toMatchObject({
        status: 429,
        headers: { 'retry-after': '5' },
        body: { error: { code: 'too_many_streams', type: 'rate_limit_error' } },
      });

      const theirs = await ledgerStream(server, other.key);
      expect(theirs.refused).toBeNull();
      try {
        // Three streams are open now, the server's total: another app under its own cap is refused too.
        const third = await ledgerStream(server, other.key);
        expect(third.refused).toMatchObject({
          status: 429,
          body: { error: { code: 'too_many_streams', message: expect.stringMatching(/limits\.streams_total/) } },
        });
      } finally {
        theirs.stream?.close();
      }
    } finally {
      for (const open of held) open.stream?.close();
    }
  });
});

describe('a stream slot is freed however the stream ends', () => {
  let server: TestBaton;

  beforeAll(async () => {
    server = await startTestBaton({ limits: lowLimits({ streamsPerApp: 1, streamsTotal: 10 }) });
  });
  afterAll(async () => server?.close());

  it('client abort, a finished stream, a stream refused before it started, a closed WebSocket', async () => {
    const first = await openOnceFree(server, server.key);
    expect((await ledgerStream(server, server.key)).refused?.status).toBe(429);
    first.close(); // the client goes away

    const second = await openOnceFree(server, server.key);
    const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id as string;
    expect((await threadStream(server, server.key, thread)).status).toBe(429);
    second.close();

    // A streamed run that finishes normally frees its slot when its response ends.
    let finished = await threadStream(server, server.key, thread);
    await eventually(async () => {
      if (finished.status !== 200) finished = await threadStream(server, server.key, thread);
      return finished.status === 200;
    }, 'the streamed run was admitted');
    expect(finished.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(String(finished.body)).toContain('event: message.completed');
    (await openOnceFree(server, server.key)).close();

    // Refused before anything streamed (an unknown thread): a plain 404, and the slot is free again.
    let missing = await threadStream(server, server.key, 'thread_missing');
    await eventually(async () => {
      if (missing.status === 429) missing = await threadStream(server, server.key, 'thread_missing');
      return missing.status !== 429;
    }, 'the stream request was admitted');
    expect(missing.status).toBe(404);
    const third = await openOnceFree(server, server.key);

    const refusedSocket = await openWebSocket(server, server.key);
    expect(refusedSocket.refused?.status).toBe(429);
    third.close();

    let socket = await openWebSocket(server, server.key);
    await eventually(async () => {
      if (!socket.ws) socket = await openWebSocket(server, server.key);
      return socket.ws !== null;
    }, 'the WebSocket was admitted');
    expect((await ledgerStream(server, server.key)).refused?.status).toBe(429);
    socket.ws!.close();
    (await openOnceFree(server, server.key)).close();
  });
});
