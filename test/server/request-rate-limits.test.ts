import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config.ts';
import { createBaton } from '../../src/server/start-baton.ts';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP } from '../faces/ces/sessions/session-fixtures.ts';
import { bearer, createApp, lowLimits } from './limit-fixtures.ts';

describe('request rate per app', () => {
  let server: TestBaton;
  let other: { id: string; key: string };

  beforeAll(async () => {
    server = await startTestBaton({ limits: lowLimits({ requestsPerMinutePerApp: 3, requestsPerMinuteTotal: 1_000 }) });
    other = await createApp(server, 'other-app'); // the default app's first request this minute
  });
  afterAll(async () => server?.close());

  it('counts an app’s requests in x-ratelimit-*, then answers 429 with Retry-After in each face’s format', async () => {
    const second = await server.request('GET', '/v1/threads');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-limit')).toBe('3');
    expect(second.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(Number(second.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect((await server.request('GET', '/v1/threads')).headers.get('x-ratelimit-remaining')).toBe('0');

    const native = await server.request('GET', '/v1/threads');
    expect(native.status).toBe(429);
    const retryAfter = Number(native.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(native.headers.get('x-ratelimit-limit')).toBe('3');
    expect(native.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(native.body.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limited',
      param: null,
      message: expect.stringMatching(/more than 3 requests this minute \(limits\.requests_per_minute_per_app\)/),
    });

    const ledger = await server.request('GET', '/v1/tool-calls');
    expect(ledger).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });

    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
    const responses = await client.responses.create({ model: 'scripted:auto', input: 'hello' }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(responses).toBeInstanceOf(OpenAI.RateLimitError);
    expect(responses).toMatchObject({ status: 429, code: 'rate_limited', type: 'rate_limit_error' });
    const headers = (responses as InstanceType<typeof OpenAI.RateLimitError>).headers;
    expect(Number(headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(headers.get('x-ratelimit-limit')).toBe('3');

    const ces = await server.request('GET', `/v1/${APP}/agents`);
    expect(ces.status).toBe(429);
    expect(Number(ces.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(ces.body).toEqual({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: expect.stringMatching(/limits\.requests_per_minute_per_app/),
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'RATE_LIMITED',
            domain: 'baton',
            metadata: {},
          },
        ],
      },
    });

    // Another app has its own count.
    const theirs = await server.request('GET', '/v1/threads', undefined, bearer(other.key));
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('/healthz is never counted', async () => {
    for (let i = 0; i < 5; i++) {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });
});

describe('request rate in all', () => {
  it('the total refuses every app; an app refused by its own limit does not use up the total', async () => {
    const server = await startTestBaton({
      limits: lowLimits({ requestsPerMinutePerApp: 3, requestsPerMinuteTotal: 5 }),
    });
    try {
      const other = await createApp(server, 'other-app'); // 1 of the default app's 3, 1 of the total's 5
      expect((await server.request('GET', '/v1/threads')).status).toBe(200);
      expect((await server.request('GET', '/v1/threads')).status).toBe(200);
      for (let i = 0; i < 4; i++) expect((await server.request('GET', '/v1/threads')).status).toBe(429);

      const theirs = () => server.request('GET', '/v1/threads', undefined, bearer(other.key));
      expect((await theirs()).status).toBe(200);
      expect((await theirs()).status).toBe(200);
      const refused = await theirs();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.body.error).toMatchObject({
        code: 'rate_limited',
        message: expect.stringMatching(/more than 5 requests this minute from all apps/),
      });
    } finally {
      await server.close();
    }
  });
});

describe('limits from baton.yaml', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-limits-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loadConfig → createBaton applies limits.requests_per_minute_per_app', async () => {
    writeFileSync(join(dir, 'baton.yaml'), 'limits:\n  requests_per_minute_per_app: 2\n');
    const config = loadConfig({ BATON_ADMIN_KEY: ADMIN_KEY }, dir);
    expect(config.limits.requestsPerMinutePerApp).toBe(2);
    const baton = await createBaton(
      { ...config, port: 0 },
      { store: { kind: 'sqlite', filename: ':memory:' }, sweeper: false },
    );
    try {
      const url = await baton.listen();
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(`${url}/v1/me`, { headers: bearer(ADMIN_KEY) })).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await baton.close();
    }
  });
});
