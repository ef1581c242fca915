import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors/baton-error.ts';
import { AuthFailureLimiter } from '../../src/server/auth-failure-limiter.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP } from '../faces/ces/sessions/session-fixtures.ts';
import { bearer, createApp, lowLimits, openWebSocket } from './limit-fixtures.ts';

describe('failed authentication per client address', () => {
  let server: TestBaton;

  beforeAll(async () => {
    server = await startTestBaton({ limits: lowLimits({ failedAuthPerMinutePerAddress: 3 }) });
  });
  afterAll(async () => server?.close());

  it('401s the first failures, 429s the next ones in each face’s format, and never refuses a valid key', async () => {
    const anonymous = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, { headers }).then(async (response) => ({
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as any,
      }));
    // A wrong key, no key, and a malformed header all count.
    expect((await anonymous('/v1/threads', bearer('bk_wrong'))).status).toBe(401);
    expect((await anonymous('/v1/threads')).status).toBe(401);
    expect((await anonymous('/v1/threads', { authorization: 'Basic abc' })).status).toBe(401);

    const native = await anonymous('/v1/threads', bearer('bk_wrong'));
    expect(native.status).toBe(429);
    expect(Number(native.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(native.retryAfter)).toBeLessThanOrEqual(60);
    expect(native.body.error).toMatchObject({
      code: 'too_many_failed_auth',
      message: expect.stringMatching(/Invalid API key.*a valid key is accepted meanwhile/),
    });

    // A valid key from the same address still works, on every face, and does not reset the count.
    expect((await server.request('GET', '/v1/threads')).status).toBe(200);
    expect((await server.request('GET', `/v1/${APP}/agents`)).status).toBe(200);
    const valid = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
    expect((await valid.responses.create({ model: 'scripted:auto', input: 'hello' })).status).toBe('completed');
    const tenant = await createApp(server, 'other-app');
    expect((await server.request('GET', '/v1/me', undefined, bearer(tenant.key))).status).toBe(200);

    const wrong = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'bk_wrong', maxRetries: 0 });
    const responses = await wrong.responses.create({ model: 'scripted:auto', input: 'hello' }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(responses).toBeInstanceOf(OpenAI.RateLimitError);
    expect(responses).toMatchObject({ status: 429, code: 'too_many_failed_auth' });

    const ces = await anonymous(`/v1/${APP}/agents`, bearer('bk_wrong'));
    expect(ces).toMatchObject({
      status: 429,
      body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ reason: 'TOO_MANY_FAILED_AUTH' }] } },
    });

    // The WebSocket upgrade authenticates on its own path, with the same count.
    const socket = await openWebSocket(server, 'bk_wrong');
    expect(socket.refused).toMatchObject({ status: 429, body: { error: { code: 'too_many_failed_auth' } } });
    expect(Number(socket.refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const validSocket = await openWebSocket(server, server.key);
    expect(validSocket.refused).toBeNull();
    validSocket.ws?.close();
  });
});

describe('AuthFailureLimiter', () => {
  const invalid = () => Promise.reject(new BatonError('invalid_api_key', 'Invalid API key.'));

  it('counts per address in fixed windows, and a new window starts afresh', async () => {
    let now = 0;
    const limiter = new AuthFailureLimiter({ maxFailures: 2, windowMs: 60_000, now: () => now });
    const codes = async (address: string) =>
      limiter.guard(address, invalid).catch((error: BatonError) => [error.code, error.retryAfterSeconds]);
    expect(await codes('10.0.0.1')).toEqual(['invalid_api_key', null]);
    expect(await codes('10.0.0.1')).toEqual(['invalid_api_key', null]);
    now = 15_000;
    expect(await codes('10.0.0.1')).toEqual(['too_many_failed_auth', 45]);
    expect(await codes('10.0.0.2')).toEqual(['invalid_api_key', null]);
    now = 60_000;
    expect(await codes('10.0.0.1')).toEqual(['invalid_api_key', null]);
  });

  it('passes successes through, and neither counts nor converts errors other than a 401', async () => {
    const limiter = new AuthFailureLimiter({ maxFailures: 1, windowMs: 60_000 });
    expect(await limiter.guard('10.0.0.1', async () => 'principal')).toBe('principal');
    const crash = new Error('database down');
    for (let i = 0; i < 3; i++)
      await expect(limiter.guard('10.0.0.1', () => Promise.reject(crash))).rejects.toBe(crash);
    await expect(limiter.guard('10.0.0.1', invalid)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(limiter.guard('10.0.0.1', invalid)).rejects.toMatchObject({ code: 'too_many_failed_auth' });
    expect(await limiter.guard('10.0.0.1', async () => 'principal')).toBe('principal');
  });

  it('remembers a bounded number of addresses, forgetting the oldest first', async () => {
    const limiter = new AuthFailureLimiter({ maxFailures: 1, windowMs: 60_000, maxAddresses: 2, now: () => 0 });
    const code = async (address: string) => limiter.guard(address, invalid).catch((error: BatonError) => error.code);
    expect(await code('a')).toBe('invalid_api_key');
    expect(await code('a')).toBe('too_many_failed_auth');
    expect(await code('b')).toBe('invalid_api_key');
    expect(await code('c')).toBe('invalid_api_key'); // 'a' is forgotten to make room
    expect(await code('a')).toBe('invalid_api_key');
    expect(await code('c')).toBe('too_many_failed_auth');
  });
});
