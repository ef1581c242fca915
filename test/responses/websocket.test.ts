/**
 * Open Responses WebSocket mode on `/v1/responses` (shared/reference/open-responses.md §3, §4.3,
 * §5.3), against a real Baton on a loopback port with the `ws` client. The first block mirrors the
 * suite's `websocket-*` test ids, each `it` named after one; every event is checked against the
 * streaming contract and every terminal response against the ResponseResource schema. The rest
 * pins what the suite does not check: auth on the upgrade, bad messages, the connection limit,
 * the size limit, shutdown, and that `store: false` data dies with its connection.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { checkResponse, checkStream, sseJsonEvents } from '../helpers/open-responses-contract.ts';
import { flakyAgent, testPrograms } from '../helpers/test-agents.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

const MODEL = 'scripted:auto';
const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);

type Json = Record<string, any>;

const getWeather = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

/** One turn as the client sees it: the events, then a terminal response or an error envelope. */
interface Turn {
  events: Json[];
  final: Json | null;
  envelope: Json | null;
}

/** A `ws` client that queues incoming messages so tests can read them in order. */
class Socket {
  private readonly inbox: Json[] = [];
  private readonly waiting: ((message: Json) => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Json;
      const waiter = this.waiting.shift();
      if (waiter) waiter(message);
      else this.inbox.push(message);
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  static open(
    server: TestBaton,
    headers: Record<string, string> = { authorization: `Bearer ${server.key}` },
    query = '',
  ): Promise<Socket> {
    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/v1/responses${query}`, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Socket(ws)));
      ws.once('error', reject);
    });
  }

  send(message: Json | string): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  next(timeoutMs = 10_000): Promise<Json> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no WebSocket message within the timeout')), timeoutMs);
      this.waiting.push((message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
  }

  /** Reads until a terminal `response.*` event, or an error envelope (an `error` with a `status`). */
  async readTurn(): Promise<Turn> {
    const events: Json[] = [];
    for (;;) {
      const message = await this.next();
      if (message['type'] === 'error' && 'status' in message) return { events, final: null, envelope: message };
      events.push(message);
      if (TERMINAL.has(message['type'])) return { events, final: message['response'], envelope: null };
    }
  }

  async turn(body: Json): Promise<Turn> {
    this.send({ type: 'response.create', ...body });
    return this.readTurn();
  }

  async close(): Promise<void> {
    this.ws.close();
    await this.closed;
  }
}

/** A completed turn, checked against the streaming and ResponseResource contracts. */
function expectCompleted(turn: Turn): Json {
  expect(turn.envelope).toBeNull();
  expect(checkStream(turn.events)).toEqual([]);
  expect(checkResponse(turn.final)).toEqual([]);
  expect(turn.final?.['status']).toBe('completed');
  return turn.final as Json;
}

/** An error envelope with the spec's shape: `{type:"error", status, error:{code, message, type, param}}`. */
function expectEnvelope(turn: Turn, status: number, code: string): Json {
  expect(turn.events).toEqual([]);
  expect(turn.envelope).toMatchObject({
    type: 'error',
    status,
    error: { code, message: expect.any(String), type: expect.any(String) },
  });
  expect(turn.envelope?.['error']).toHaveProperty('param');
  return turn.envelope as Json;
}

/** Polls until `check` passes: store:false purges run after the connection closed. */
async function eventually(check: () => Promise<void>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** Opens a socket and expects the upgrade to be refused with `status`; returns the JSON body. */
function refusedUpgrade(
  server: TestBaton,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Json }> {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}${path}`, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('error', () => {});
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += String(chunk)));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Json }));
    });
  });
}

describe('Open Responses WebSocket mode: the suite ids', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton();
  });
  afterAll(async () => server.close());

  it('websocket-response : one response.create streams the same events as SSE and completes', async () => {
    const body = { model: MODEL, input: 'Say hello in exactly 3 words.' };
    const socket = await Socket.open(server);
    const turn = await socket.turn(body);
    const final = expectCompleted(turn);
    expect((final['output'] as unknown[]).length).toBeGreaterThan(0);
    expect(turn.events[0]).toMatchObject({ type: 'response.created', sequence_number: 0 });

    const http = await server.request('POST', '/v1/responses', { ...body, stream: true });
    const sse = sseJsonEvents(http.body as string) as Json[];
    expect(turn.events.map((event) => event['type'])).toEqual(sse.map((event) => event['type']));
    await socket.close();
  });

  it('websocket-sequential-responses : two turns sent at once run one after the other, in order', async () => {
    const socket = await Socket.open(server);
    socket.send({ type: 'response.create', model: MODEL, store: false, input: 'Reply with exactly: first' });
    socket.send({ type: 'response.create', model: MODEL, store: false, input: 'Reply with exactly: second' });
    const first = expectCompleted(await socket.readTurn());
    const second = expectCompleted(await socket.readTurn());
    expect(first['id']).not.toBe(second['id']);
    expect(first['store']).toBe(false);
    expect(second['previous_response_id']).toBeNull();
    await socket.close();
  });

  it('websocket-continuation : a store:false response is continued on its own connection', async () => {
    const socket = await Socket.open(server);
    const first = expectCompleted(
      await socket.turn({ model: MODEL, store: false, input: 'Remember the code word: ember. Reply with OK.' }),
    );
    const second = expectCompleted(
      await socket.turn({
        model: MODEL,
        store: false,
        previous_response_id: first['id'],
        input: 'What is the code word?',
      }),
    );
    expect(second['previous_response_id']).toBe(first['id']);
    expect(second['baton_run']['conversation_id']).toBe(first['baton_run']['conversation_id']);
    // Not stored: nobody reads it by id, not even on the same key.
    expect((await server.request('GET', `/v1/responses/${String(first['id'])}`)).status).toBe(404);
    await socket.close();
  });

  it('websocket-reconnect-store-false-recovery : another connection cannot continue it; a fresh chain works', async () => {
    const a = await Socket.open(server);
    const first = expectCompleted(await a.turn({ model: MODEL, store: false, input: 'Remember: ember.' }));
    const b = await Socket.open(server);
    const miss = await b.turn({
      model: MODEL,
      store: false,
      previous_response_id: first['id'],
      input: 'Try to continue after reconnect.',
    });
    expect(expectEnvelope(miss, 400, 'previous_response_not_found')['error']).toMatchObject({
      param: 'previous_response_id',
      type: 'invalid_request_error',
    });
    // Neither can HTTP, while A is still open.
    const overHttp = await server.request('POST', '/v1/responses', {
      model: MODEL,
      previous_response_id: first['id'],
      input: 'hi',
    });
    expect(overHttp.status).toBe(400);
    expect(overHttp.body.error.code).toBe('previous_response_not_found');
    await a.close();
    const again = await b.turn({ model: MODEL, store: false, previous_response_id: first['id'], input: 'And now?' });
    expectEnvelope(again, 400, 'previous_response_not_found');
    const recovered = expectCompleted(
      await b.turn({
        model: MODEL,
        store: false,
        input: [{ type: 'message', role: 'user', content: 'Start a new response.' }],
      }),
    );
    expect(recovered['previous_response_id']).toBeNull();
    await b.close();
  });

  it('websocket-previous-response-not-found : an unknown id gets the previous_response_not_found envelope', async () => {
    const socket = await Socket.open(server);
    const turn = await socket.turn({
      model: MODEL,
      store: false,
      previous_response_id: `resp_openresponses_missing_${Date.now()}`,
      input: 'This should fail.',
    });
    const envelope = expectEnvelope(turn, 400, 'previous_response_not_found');
    expect(envelope['error']['message']).toMatch(
      /^Previous response with id 'resp_openresponses_missing_\d+' not found\.$/,
    );
    await socket.close();
  });

  it('websocket-failed-continuation-evicts-cache : a failed continuation evicts the id and purges its conversation', async () => {
    const socket = await Socket.open(server);
    const first = expectCompleted(
      await socket.turn({ model: MODEL, store: false, input: 'Remember the code word: ember. Reply with OK.' }),
    );
    const threadId = String(first['baton_run']['conversation_id']);
    expect((await server.request('GET', `/v1/threads/${threadId}`)).status).toBe(200);

    const failed = await socket.turn({
      model: MODEL,
      store: false,
      previous_response_id: first['id'],
      input: [
        {
          type: 'function_call_output',
          call_id: 'call_openresponses_missing',
          output: 'No matching tool call exists.',
        },
      ],
    });
    // Refused before any event, so a client reading "error ends the turn" sees no stray response.failed.
    const envelope = expectEnvelope(failed, 400, 'tool_output_without_call');
    expect(envelope['error']['message']).toBe(
      'No tool call found for function call output with call_id call_openresponses_missing.',
    );

    const retry = await socket.turn({
      model: MODEL,
      store: false,
      previous_response_id: first['id'],
      input: 'Try to continue after the failed turn.',
    });
    expectEnvelope(retry, 400, 'previous_response_not_found');
    await eventually(async () => expect((await server.request('GET', `/v1/threads/${threadId}`)).status).toBe(404));
    // The connection itself is fine.
    expectCompleted(await socket.turn({ model: MODEL, store: false, input: 'Still there?' }));
    await socket.close();
  });

  it('websocket-compact-new-chain : compacted output plus a user message starts a new WebSocket chain', async () => {
    const compact = await server.request('POST', '/v1/responses/compact', {
      model: MODEL,
      input: [
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Remember the compaction code word: slate.' }],
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'OK.' }] },
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Compress this conversation for later continuation.' }],
        },
      ],
    });
    expect(compact.status).toBe(200);
    const output = compact.body.output as Json[];
    expect(output.some((item) => item['type'] === 'compaction')).toBe(true);

    const socket = await Socket.open(server);
    const turn = await socket.turn({
      model: MODEL,
      store: false,
      input: [
        ...output,
        { type: 'message', role: 'user', content: 'Continue from here. Reply with exactly: compacted' },
      ],
      tools: [],
    });
    const final = expectCompleted(turn);
    expect(final['previous_response_id']).toBeNull();
    await socket.close();
  });
});

describe('Open Responses WebSocket mode: connection behaviour', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton();
  });
  afterAll(async () => server.close());

  it('refuses the upgrade with 401 without a valid key, accepts x-api-key, and 404s other paths', async () => {
    const missing = await refusedUpgrade(server, '/v1/responses', {});
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: 'missing_api_key', message: expect.any(String) });
    const wrong = await refusedUpgrade(server, '/v1/responses', { authorization: 'Bearer bk_not_a_key' });
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    const elsewhere = await refusedUpgrade(server, '/v1/threads', { authorization: `Bearer ${server.key}` });
    expect(elsewhere).toMatchObject({ status: 404, body: { error: { code: 'route_not_found' } } });

    // x-api-key works as over HTTP, and a query string does not change the path.
    const socket = await Socket.open(server, { 'x-api-key': server.key }, '?client=test');
    expectCompleted(await socket.turn({ model: MODEL, input: 'hi' }));
    await socket.close();
  });

  it('answers bad messages with an error envelope and keeps the connection usable', async () => {
    const socket = await Socket.open(server);
    socket.send('{not json');
    expectEnvelope(await socket.readTurn(), 400, 'invalid_json');
    socket.send('[1,2]');
    expectEnvelope(await socket.readTurn(), 400, 'invalid_message');
    expect(
      expectEnvelope(await socket.turn({ type: 'response.cancel' } as Json), 400, 'unknown_message_type')['error'][
        'param'
      ],
    ).toBe('type');
    socket.send({ model: MODEL, input: 'no type' });
    expectEnvelope(await socket.readTurn(), 400, 'unknown_message_type');
    expect(
      expectEnvelope(
        await socket.turn({ model: MODEL, input: 'hi', background: true }),
        400,
        'background_not_supported',
      )['error']['param'],
    ).toBe('background');
    expect(
      expectEnvelope(await socket.turn({ model: MODEL, input: 'hi', stream: false }), 400, 'stream_required')['error'][
        'param'
      ],
    ).toBe('stream');
    // Validation is POST /v1/responses' own: same status, code and param as over HTTP.
    for (const fields of [{ temperature: 5 }, { colour: 'red' }]) {
      const http = await server.request('POST', '/v1/responses', { model: MODEL, input: 'hi', ...fields });
      const envelope = expectEnvelope(
        await socket.turn({ model: MODEL, input: 'hi', ...fields }),
        http.status,
        http.body.error.code,
      );
      expect(http.status).toBe(400);
      const { message: httpMessage, ...httpRest } = http.body.error as Json;
      const { message, ...rest } = envelope['error'] as Json;
      expect(rest).toEqual(httpRest);
      expect(message).toBe(String(httpMessage).replace('request body', 'response.create message'));
    }
    socket.send('{"type":"response.create","model":"scripted:auto","input":"hi","metadata":{"__proto__":{"x":"1"}}}');
    expectEnvelope(await socket.readTurn(), 400, 'invalid_json');
    expectEnvelope(await socket.turn({ model: 'no-such-agent', input: 'hi' }), 404, 'model_not_found');
    // stream: true is what WebSocket mode does anyway.
    expectCompleted(await socket.turn({ model: MODEL, input: 'hi', stream: true }));
    await socket.close();
  });

  it('purges a store:false conversation when its connection closes, and keeps stored responses', async () => {
    const socket = await Socket.open(server);
    const unstored = expectCompleted(await socket.turn({ model: MODEL, store: false, input: 'Forget me.' }));
    const continued = expectCompleted(
      await socket.turn({ model: MODEL, store: false, previous_response_id: unstored['id'], input: 'And me.' }),
    );
    const stored = expectCompleted(await socket.turn({ model: MODEL, input: 'Keep me.' }));
    const threadId = String(unstored['baton_run']['conversation_id']);
    expect((await server.request('GET', `/v1/threads/${threadId}`)).status).toBe(200);
    await socket.close();

    await eventually(async () => expect((await server.request('GET', `/v1/threads/${threadId}`)).status).toBe(404));
    expect((await server.request('GET', `/v1/responses/${String(unstored['id'])}`)).status).toBe(404);
    expect((await server.request('GET', `/v1/responses/${String(continued['id'])}`)).status).toBe(404);
    const kept = await server.request('GET', `/v1/responses/${String(stored['id'])}`);
    expect(kept.status).toBe(200);
    expect(checkResponse(kept.body)).toEqual([]);
    expect((await server.request('GET', `/v1/threads/${String(stored['baton_run']['conversation_id'])}`)).status).toBe(
      200,
    );
  });

  it('round-trips a client tool call: function_call, then function_call_output with previous_response_id', async () => {
    const socket = await Socket.open(server);
    const first = expectCompleted(
      await socket.turn({
        model: MODEL,
        store: false,
        input: "What's the weather like in San Francisco?",
        tools: [getWeather],
      }),
    );
    const call = (first['output'] as Json[]).find((item) => item['type'] === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', call_id: expect.stringMatching(/^call_/), status: 'completed' });

    const second = await socket.turn({
      model: MODEL,
      store: false,
      previous_response_id: first['id'],
      input: [{ type: 'function_call_output', call_id: call?.['call_id'], output: '64 degrees and clear' }],
    });
    const final = expectCompleted(second);
    expect(final['previous_response_id']).toBe(first['id']);
    const output = final['output'] as Json[];
    expect(output.some((item) => item['type'] === 'message')).toBe(true);
    expect(output.some((item) => item['type'] === 'function_call')).toBe(false);
    await socket.close();
  });

  it('evicts and purges the oldest store:false chain beyond the 16 most recent responses', async () => {
    const socket = await Socket.open(server);
    const oldest = expectCompleted(await socket.turn({ model: MODEL, store: false, input: 'turn 0' }));
    for (let i = 1; i <= 16; i++)
      expectCompleted(await socket.turn({ model: MODEL, store: false, input: `turn ${i}` }));
    expectEnvelope(
      await socket.turn({ model: MODEL, store: false, previous_response_id: oldest['id'], input: 'too late' }),
      400,
      'previous_response_not_found',
    );
    await eventually(async () =>
      expect(
        (await server.request('GET', `/v1/threads/${String(oldest['baton_run']['conversation_id'])}`)).status,
      ).toBe(404),
    );
    await socket.close();
  });
});

describe('Open Responses WebSocket mode: failing turns', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({ scripted: { flaky: testPrograms.flaky }, agents: [DEMO_AGENT, flakyAgent] });
  });
  afterAll(async () => server.close());

  it('a continuation whose response fails (model error) streams error + response.failed and evicts the id', async () => {
    const socket = await Socket.open(server);
    const first = expectCompleted(await socket.turn({ model: flakyAgent.name, store: false, input: 'hello' }));
    const failed = await socket.turn({
      model: flakyAgent.name,
      store: false,
      previous_response_id: first['id'],
      input: 'flaky',
    });
    // The turn had begun, so the failure arrives as events; no second (envelope) error follows.
    expect(failed.envelope).toBeNull();
    expect(checkStream(failed.events)).toEqual([]);
    expect(failed.events.map((event) => event['type']).slice(-2)).toEqual(['error', 'response.failed']);
    expect(failed.final).toMatchObject({ status: 'failed', error: { code: 'model_error' } });

    const retry = await socket.turn({
      model: flakyAgent.name,
      store: false,
      previous_response_id: first['id'],
      input: 'hello again',
    });
    expectEnvelope(retry, 400, 'previous_response_not_found');
    await eventually(async () =>
      expect((await server.request('GET', `/v1/threads/${String(first['baton_run']['conversation_id'])}`)).status).toBe(
        404,
      ),
    );
    await socket.close();
  });
});

describe('Open Responses WebSocket mode: limits and shutdown', () => {
  it('sends websocket_connection_limit_reached after the connection limit, once the running turn ended, then closes', async () => {
    const server = await startTestBaton({}, { responsesWebSocket: { connectionLimitMs: 150 } });
    try {
      // The turn outlives the limit: it must still finish before the limit error and the close.
      const engine = server.baton.engine;
      const start = engine.startConversation.bind(engine);
      vi.spyOn(engine, 'startConversation').mockImplementation(async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return start(...args);
      });
      const socket = await Socket.open(server);
      socket.send({ type: 'response.create', model: MODEL, store: false, input: 'slow' });
      // Sent after the limit: not run, the limit error is its answer.
      setTimeout(() => socket.send({ type: 'response.create', model: MODEL, store: false, input: 'too late' }), 250);
      const turn = await socket.readTurn();
      expectCompleted(turn);
      const limit = await socket.next(5_000);
      expect(limit).toMatchObject({
        type: 'error',
        status: 400,
        error: {
          code: 'websocket_connection_limit_reached',
          message: expect.any(String),
          type: 'invalid_request_error',
        },
      });
      expect(await socket.closed).toEqual({ code: 1000, reason: 'websocket_connection_limit_reached' });
      expect(engine.startConversation).toHaveBeenCalledTimes(1);
      await eventually(async () =>
        expect(
          (await server.request('GET', `/v1/threads/${String(turn.final?.['baton_run']['conversation_id'])}`)).status,
        ).toBe(404),
      );
    } finally {
      await server.close();
    }
  });

  it('closes a connection whose message exceeds the body limit (1009)', async () => {
    const server = await startTestBaton({ bodyLimitBytes: 4_096 });
    try {
      const socket = await Socket.open(server);
      socket.send({ type: 'response.create', model: MODEL, input: 'x'.repeat(8_000) });
      expect((await socket.closed).code).toBe(1009);
    } finally {
      await server.close();
    }
  });

  it('closing the server closes open connections (1001) instead of hanging', async () => {
    const server = await startTestBaton();
    const socket = await Socket.open(server);
    const turn = expectCompleted(await socket.turn({ model: MODEL, store: false, input: 'hi' }));
    const threadId = String(turn['baton_run']['conversation_id']);
    const purge = vi.spyOn(server.baton.engine, 'deleteConversation');
    await server.close();
    expect((await socket.closed).code).toBe(1001);
    // The store:false conversation was purged during close, before the store itself closed.
    expect(purge).toHaveBeenCalledWith(server.baton.defaultAppId, threadId, expect.any(String));
    // It resolved (with the rows it removed), rather than failing on a closed store.
    await expect(purge.mock.results[0]?.value).resolves.toMatchObject({ conversations: 1 });
  });
});
