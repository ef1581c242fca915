import {
  Baton,
  BatonConnectionError,
  BatonError,
  BatonTimeoutError,
  normalizeBaseURL,
  type BatonOptions,
  type FetchLike,
} from '@baton/client';
import { afterEach, describe, expect, it } from 'vitest';

/** The HTTP layer against a scripted fetch: auth, idempotency keys, retries, errors, timeouts. */

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A fetch that answers from a script, one entry per attempt, and records what it was sent. */
function scripted(answers: Array<Response | Error | ((init: RequestInit) => Promise<Response>)>): {
  fetch: FetchLike;
  seen: Seen[];
} {
  const seen: Seen[] = [];
  const fetch: FetchLike = async (url, init) => {
    seen.push({
      url,
      method: String(init.method),
      headers: init.headers as Record<string, string>,
      body: init.body as string | undefined,
    });
    const answer = answers.shift();
    if (!answer) throw new Error('no more scripted answers');
    if (answer instanceof Error) throw answer;
    return typeof answer === 'function' ? answer(init) : answer;
  };
  return { fetch, seen };
}

function client(fetch: FetchLike, options: BatonOptions = {}): Baton {
  return new Baton({ baseURL: 'http://baton.test', apiKey: 'bk_test', retryDelayMs: 1, fetch, ...options });
}

const networkFault = (): TypeError =>
  new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });

describe('transport', () => {
  afterEach(() => {
    delete process.env.BATON_URL;
    delete process.env.BATON_API_KEY;
  });

  it('sends Bearer auth and JSON; POSTs carry an Idempotency-Key, GETs none', async () => {
    const { fetch, seen } = scripted([json(200, { id: 'thread_1' }), json(200, { id: 'thread_1' })]);
    const baton = client(fetch);
    await baton.threads.create({ agent: 'a' });
    await baton.threads.get('thread_1');
    expect(seen[0]).toMatchObject({ url: 'http://baton.test/v1/threads', method: 'POST', body: '{"agent":"a"}' });
    expect(seen[0]?.headers).toMatchObject({
      authorization: 'Bearer bk_test',
      'content-type': 'application/json',
      'idempotency-key': expect.stringMatching(/^baton-[0-9a-f-]{36}$/),
    });
    expect(seen[1]?.headers['idempotency-key']).toBeUndefined();
  });

  it('retries 503 and network faults with the same Idempotency-Key', async () => {
    const { fetch, seen } = scripted([
      json(503, { error: { type: 'api_error', code: 'unavailable', message: 'busy' } }),
      networkFault(),
      json(200, { ok: true }),
    ]);
    await client(fetch).threads.send('thread_1', { content: 'hi' });
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
  });

  it('gives up after maxRetries with a BatonConnectionError that keeps the cause', async () => {
    const { fetch, seen } = scripted([networkFault(), networkFault(), networkFault()]);
    const error = await client(fetch, { maxRetries: 2 })
      .threads.get('t')
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(BatonConnectionError);
    expect((error as Error).message).toContain('other side closed');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(seen).toHaveLength(3);
  });

  it('does not retry a 4xx, nor a 502 that is Baton saying the model failed', async () => {
    const bad = scripted([
      json(400, {
        error: {
          type: 'invalid_request_error',
          code: 'missing_tool_results',
          message: 'Missing results',
          param: 'content',
          missing_tool_call_ids: ['call_2'],
        },
      }),
    ]);
    const error = await client(bad.fetch)
      .threads.send('t', { content: 'x' })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(BatonError);
    expect(error).toMatchObject({
      status: 400,
      code: 'missing_tool_results',
      type: 'invalid_request_error',
      param: 'content',
      details: { missing_tool_call_ids: ['call_2'] },
    });
    expect(bad.seen).toHaveLength(1);

    const model = scripted([
      json(502, { error: { type: 'model_error', code: 'model_error', message: 'The model call failed' } }),
    ]);
    await expect(client(model.fetch).threads.send('t', { content: 'x' })).rejects.toMatchObject({
      status: 502,
      code: 'model_error',
    });
    expect(model.seen).toHaveLength(1);

    const gateway = scripted([new Response('<html>Bad Gateway</html>', { status: 502 }), json(200, {})]);
    await client(gateway.fetch).threads.get('t');
    expect(gateway.seen).toHaveLength(2);
  });

  it('waits out a 409 idempotency_key_in_use without using up retries', async () => {
    const inUse = () =>
      json(409, { error: { type: 'conflict_error', code: 'idempotency_key_in_use', message: 'still running' } });
    const { fetch, seen } = scripted([inUse(), inUse(), json(200, { done: true }, { 'idempotent-replayed': 'true' })]);
    const answer = await client(fetch, { maxRetries: 0 }).threads.send(
      't',
      { content: 'x' },
      { idempotencyKey: 'my-key' },
    );
    expect(answer).toEqual({ done: true });
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual(['my-key', 'my-key', 'my-key']);
  });

  it('reads CES (google.rpc) and Responses (OpenAI) error bodies into the same fields', async () => {
    const google = scripted([
      json(400, {
        error: {
          code: 400,
          status: 'FAILED_PRECONDITION',
          message: 'Session is waiting',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'TOOL_RESPONSES_PENDING',
              domain: 'baton',
              metadata: { pendingToolCallIds: 'call_1' },
            },
            {
              '@type': 'type.googleapis.com/google.rpc.BadRequest',
              fieldViolations: [{ field: 'inputs[0]', description: 'x' }],
            },
          ],
        },
      }),
    ]);
    await expect(
      client(google.fetch).ces.sessions.runRaw('projects/p/locations/l/apps/a/sessions/s', {
        config: { session: 's' },
        inputs: [],
      }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'tool_responses_pending',
      type: 'FAILED_PRECONDITION',
      param: 'inputs[0]',
      details: { pendingToolCallIds: 'call_1' },
      message: 'Session is waiting',
    });
    const openai = scripted([
      json(
        404,
        {
          error: {
            message: "The model 'x' does not exist",
            type: 'invalid_request_error',
            param: 'model',
            code: 'model_not_found',
          },
        },
        { 'x-request-id': 'req-9' },
      ),
    ]);
    await expect(client(openai.fetch).responses.create({ model: 'x', input: 'hi' })).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
      param: 'model',
      requestId: 'req-9',
    });
    const html = scripted([new Response('<h1>Forbidden</h1>', { status: 403 })]);
    await expect(client(html.fetch).agents.list()).rejects.toMatchObject({
      status: 403,
      code: null,
      message: '<h1>Forbidden</h1>',
    });
  });

  it('times a request out with a BatonTimeoutError, and an abort wins over retries', async () => {
    const hang = (init: RequestInit): Promise<Response> =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    await expect(client(scripted([hang]).fetch, { timeoutMs: 30 }).threads.get('t')).rejects.toBeInstanceOf(
      BatonTimeoutError,
    );

    const controller = new AbortController();
    const { fetch, seen } = scripted([json(503, {}), json(503, {}), json(200, {})]);
    const pending = client(fetch, { retryDelayMs: 10_000 }).threads.get('t', { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(1);
  });

  it('normalises the base URL and falls back to BATON_URL / BATON_API_KEY', async () => {
    expect(normalizeBaseURL('http://h:8080/v1/')).toBe('http://h:8080');
    expect(normalizeBaseURL('http://h:8080/')).toBe('http://h:8080');
    expect(normalizeBaseURL('http://h:8080')).toBe('http://h:8080');
    expect(() => new Baton({ baseURL: 'http://h' })).toThrow(/BATON_API_KEY/);
    process.env.BATON_URL = 'http://env-host:9000/v1';
    process.env.BATON_API_KEY = 'bk_env';
    const { fetch, seen } = scripted([json(200, { object: 'list', data: [], has_more: false, next_cursor: null })]);
    await new Baton({ fetch }).agents.list({ limit: 5 });
    expect(seen[0]?.url).toBe('http://env-host:9000/v1/agents?limit=5');
    expect(seen[0]?.headers.authorization).toBe('Bearer bk_env');
  });
});
