import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedAgentPool } from '../../../src/tools/http/guarded-agent.ts';
import { safeFetch, type SafeFetchOptions } from '../../../src/tools/http/safe-fetch.ts';
import { startServer, type LocalServer } from './local-servers.ts';
import { egressFailure, startTestApi, type HugeStats } from './test-api.ts';

const LOOPBACK = { allow: ['127.0.0.0/8'] };
const agents = new GuardedAgentPool();

let api: LocalServer;
let huge: HugeStats;
let other: LocalServer; // another origin (port) on 127.0.0.1

beforeAll(async () => {
  ({ api, huge } = await startTestApi());
  other = await startServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(req.headers));
  });
});

afterAll(async () => {
  await agents.close();
  await Promise.all([api.close(), other.close()]);
});

function opts(policy: SafeFetchOptions['policy'], extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return { policy, agents, timeoutMs: 5_000, maxResponseBytes: 1024 * 1024, ...extra };
}

describe('safeFetch limits', () => {
  it('stops a redirect loop at maxRedirects', async () => {
    const before = api.hits.length;
    const error = await egressFailure(safeFetch(`${api.origin}/loop`, {}, opts(LOOPBACK, { maxRedirects: 3 })));
    expect(error.code).toBe('too_many_redirects');
    expect(error.message).toContain('after 3 redirects');
    expect(api.hits.length - before).toBe(4);
  });

  it('times out a server that does not send headers', async () => {
    const started = Date.now();
    const error = await egressFailure(safeFetch(`${api.origin}/slow-headers`, {}, opts(LOOPBACK, { timeoutMs: 300 })));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('within 300 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('times out a body that never ends (the deadline covers the body)', async () => {
    const error = await egressFailure(safeFetch(`${api.origin}/slow-body`, {}, opts(LOOPBACK, { timeoutMs: 300 })));
    expect(error.code).toBe('timeout');
  });

  it('truncates an endless body at the cap without reading on', async () => {
    const cap = 100_000;
    const response = await safeFetch(`${api.origin}/huge`, {}, opts(LOOPBACK, { maxResponseBytes: cap }));
    expect(response.truncated).toBe(true);
    expect(response.body.length).toBe(cap);
    await huge.closed; // the client dropped the connection instead of draining an endless stream
    // What the server managed to write is bounded by socket buffers, not by the body's length.
    expect(huge.bytesWritten).toBeLessThan(32 * 1024 * 1024);
  });

  it('does not flag a body of exactly the cap as truncated', async () => {
    const response = await safeFetch(`${api.origin}/exact`, {}, opts(LOOPBACK, { maxResponseBytes: 1000 }));
    expect(response.truncated).toBe(false);
    expect(response.body.length).toBe(1000);
  });

  it('reports invalid URLs and non-http schemes', async () => {
    expect((await egressFailure(safeFetch('not a url', {}, opts(LOOPBACK)))).code).toBe('invalid_url');
    expect((await egressFailure(safeFetch('file:///etc/passwd', {}, opts(LOOPBACK)))).code).toBe('invalid_url');
    const redirect = await egressFailure(
      safeFetch(`${api.origin}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, {}, opts(LOOPBACK)),
    );
    expect(redirect.code).toBe('invalid_url');
    expect(redirect.message).toContain('only http and https');
  });

  it('reports a closed port and an unknown host as connection failures', async () => {
    const closed = await startServer((_req, res) => res.end());
    await closed.close();
    const refused = await egressFailure(safeFetch(`http://127.0.0.1:${closed.port}/`, {}, opts(LOOPBACK)));
    expect(refused.code).toBe('connection_failed');
    expect(refused.message).toContain(`127.0.0.1:${closed.port}`);
    expect(refused.message).toContain('ECONNREFUSED');
    const unknown = await egressFailure(safeFetch('http://nowhere.test/', {}, opts(LOOPBACK)));
    expect(unknown.code).toBe('connection_failed');
    expect(unknown.message).toContain('Could not resolve host nowhere.test');
  });

  it("rethrows the caller's own abort as is", async () => {
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    setTimeout(() => controller.abort(reason), 50);
    await expect(safeFetch(`${api.origin}/slow-headers`, { signal: controller.signal }, opts(LOOPBACK))).rejects.toBe(
      reason,
    );
  });
});

describe('safeFetch redirects and credentials', () => {
  const secrets = {
    authorization: 'Bearer secret-token',
    cookie: 'session=abc',
    'x-api-key': 'k1',
    'x-custom-auth': 'c1',
    'x-trace': 'keep-me',
  };

  it('drops credential headers when a redirect changes origin', async () => {
    const to = encodeURIComponent(`${other.origin}/`);
    const response = await safeFetch(
      `${api.origin}/redirect?to=${to}`,
      { headers: secrets, credentials: { headers: ['X-Custom-Auth'] } },
      opts(LOOPBACK),
    );
    const seen = JSON.parse(response.body.toString()) as Record<string, string>;
    expect(seen['x-trace']).toBe('keep-me');
    expect(seen['authorization']).toBeUndefined();
    expect(seen['cookie']).toBeUndefined();
    expect(seen['x-api-key']).toBeUndefined();
    expect(seen['x-custom-auth']).toBeUndefined();
    // The first hop did get them.
    expect(api.hits.at(-1)?.headers['authorization']).toBe('Bearer secret-token');
  });

  it('keeps them on a same-origin redirect', async () => {
    const response = await safeFetch(`${api.origin}/redirect?to=/echo-headers`, { headers: secrets }, opts(LOOPBACK));
    const seen = JSON.parse(response.body.toString()) as Record<string, string>;
    expect(seen['authorization']).toBe('Bearer secret-token');
    expect(seen['x-api-key']).toBe('k1');
  });

  it('turns a POST into a GET on 303 and repeats it on 307', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' };
    await safeFetch(`${api.origin}/redirect?status=303&to=/echo-headers`, init, opts(LOOPBACK));
    expect(api.hits.at(-1)?.method).toBe('GET');
    expect(api.hits.at(-1)?.headers['content-type']).toBeUndefined();
    await safeFetch(`${api.origin}/redirect?status=307&to=/echo-headers`, init, opts(LOOPBACK));
    expect(api.hits.at(-1)?.method).toBe('POST');
    expect(api.hits.at(-1)?.headers['content-length']).toBe('7');
  });
});
