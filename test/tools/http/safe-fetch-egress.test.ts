import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedAgentPool } from '../../../src/tools/http/guarded-agent.ts';
import { safeFetch, type SafeFetchOptions } from '../../../src/tools/http/safe-fetch.ts';
import { startServer, type LocalServer } from './local-servers.ts';
import { egressFailure, startTestApi } from './test-api.ts';

const LOOPBACK = { allow: ['127.0.0.0/8'] };
const ONLY_127_0_0_1 = { allow: ['127.0.0.1/32'] };
const NOTHING = { allow: [] };

/** Fake DNS for names under .test; every other name goes nowhere. */
const fakeDns: Record<string, LookupAddress[]> = {
  'svc.test': [{ address: '127.0.0.1', family: 4 }],
  'mixed.test': [
    { address: '93.184.215.14', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
};
const lookups: string[] = [];
const agents = new GuardedAgentPool({
  resolve: async (hostname) => {
    lookups.push(hostname);
    const answers = fakeDns[hostname];
    if (answers) return answers;
    if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  },
});

let api: LocalServer;
let second: LocalServer; // 127.0.0.2: loopback, but outside 127.0.0.1/32

beforeAll(async () => {
  ({ api } = await startTestApi());
  second = await startServer((_req, res) => res.end('secret'), { host: '127.0.0.2' });
});

afterAll(async () => {
  await agents.close();
  await Promise.all([api.close(), second.close()]);
});

function opts(policy: SafeFetchOptions['policy']): SafeFetchOptions {
  return { policy, agents, timeoutMs: 5_000 };
}

describe('safeFetch egress checks', () => {
  it('refuses loopback by default and allows it through egress.allow', async () => {
    const before = api.hits.length;
    const error = await egressFailure(safeFetch(`${api.origin}/hello`, {}, opts(NOTHING)));
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain('127.0.0.1 is a loopback address');
    expect(error.message).toContain('"127.0.0.1/32"');
    expect(error.message).toContain('egress.allow');
    expect(api.hits.length).toBe(before);

    const ok = await safeFetch(`${api.origin}/hello`, {}, opts(LOOPBACK));
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe('hello');
    expect(ok.headers.get('content-type')).toBe('text/plain');
    expect(ok.truncated).toBe(false);
  });

  it('checks what a host name resolves to (localhost -> 127.0.0.1)', async () => {
    const error = await egressFailure(safeFetch(`http://localhost:${api.port}/hello`, {}, opts(NOTHING)));
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain('localhost (127.0.0.1)');
    expect(error.message).toContain('or "localhost" to egress.allow');
    const byName = await safeFetch(`http://localhost:${api.port}/hello`, {}, opts({ allow: ['localhost'] }));
    expect(byName.body.toString()).toBe('hello');
  });

  it('refuses a name when any of its DNS answers is refused', async () => {
    const error = await egressFailure(safeFetch(`http://mixed.test:${api.port}/hello`, {}, opts(NOTHING)));
    expect(error.code).toBe('blocked_address');
    expect(error.address).toBe('127.0.0.1');
  });

  it('connects to the address it checked, resolving once per connection', async () => {
    lookups.length = 0;
    // svc.test exists only in the fake resolver: reaching the server proves the checked answer was used.
    const response = await safeFetch(`http://svc.test:${api.port}/hello`, {}, opts(LOOPBACK));
    expect(response.body.toString()).toBe('hello');
    expect(lookups).toEqual(['svc.test']);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://[::ffff:127.0.0.1]:1/', 'IPv4-mapped'],
    ['http://[fd00:ec2::254]/', 'cloud metadata'],
  ])('refuses %s', async (url, words) => {
    const started = Date.now();
    const error = await egressFailure(safeFetch(url, {}, opts(NOTHING)));
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain(words);
    expect(Date.now() - started).toBeLessThan(1_000); // refused, not timed out
  });

  it('refuses 0.0.0.0 even when loopback is allowed (it would reach this host)', async () => {
    const before = api.hits.length;
    const error = await egressFailure(safeFetch(`http://0.0.0.0:${api.port}/hello`, {}, opts(LOOPBACK)));
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain('unspecified');
    expect(api.hits.length).toBe(before);
  });

  it('refuses a redirect chain that ends at a blocked address, naming it and egress.allow', async () => {
    const target = `http://127.0.0.2:${second.port}/secret`;
    const error = await egressFailure(
      safeFetch(`${api.origin}/chain?to=${encodeURIComponent(target)}`, {}, opts(ONLY_127_0_0_1)),
    );
    expect(error.code).toBe('blocked_address');
    expect(error.message).toMatch(/^After 3 redirect\(s\), the request to http:\/\/127\.0\.0\.2:\d+\/secret failed/);
    expect(error.message).toContain('"127.0.0.2/32"');
    expect(error.message).toContain('egress.allow');
    expect(second.hits).toHaveLength(0);

    const metadata = await egressFailure(
      safeFetch(`${api.origin}/redirect?to=${encodeURIComponent('http://169.254.169.254/')}`, {}, opts(LOOPBACK)),
    );
    expect(metadata.code).toBe('blocked_address');
    expect(metadata.address).toBe('169.254.169.254');
  });

  it('follows an allowed chain to the end', async () => {
    const response = await safeFetch(`${api.origin}/chain`, {}, opts(LOOPBACK));
    expect(response.body.toString()).toBe('hello');
    expect(response.redirects).toBe(3);
    expect(response.url).toBe(`${api.origin}/hello`);
  });
});
