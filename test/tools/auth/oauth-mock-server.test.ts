import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EgressError } from '../../../src/tools/http/egress-error.ts';
import { GuardedAgentPool } from '../../../src/tools/http/guarded-agent.ts';
import { AuthError } from '../../../src/tools/auth/auth-error.ts';
import { OAuthTokenCache, type ClientCredentialsRequest } from '../../../src/tools/auth/oauth-token-cache.ts';
import { safeFetchTokenSender } from '../../../src/tools/auth/token-sender.ts';
import { jwtPayload, startOAuthTestServer, type OAuthTestServer } from './oauth-test-server.ts';

// A secret with characters that form-urlencoding changes, so the Basic encoding is exercised.
const SECRET = 's3cr3t:with+plus/slash é';

let oauth: OAuthTestServer;
const agents = new GuardedAgentPool();
const send = safeFetchTokenSender({ policy: { allow: ['127.0.0.1/32'] }, agents, timeoutMs: 5_000 });
const clock = { now: 1_700_000_000_000 };
let cache: OAuthTokenCache;

beforeAll(async () => {
  oauth = await startOAuthTestServer();
});

afterAll(async () => {
  await agents.close();
  await oauth.close();
});

beforeEach(() => {
  oauth.reset();
  cache = new OAuthTokenCache({ now: () => clock.now });
});

function request(overrides: Partial<ClientCredentialsRequest> = {}): ClientCredentialsRequest {
  return {
    tokenEndpoint: oauth.tokenEndpoint,
    clientId: 'baton-client',
    clientSecret: SECRET,
    scopes: ['read', 'write'],
    ...overrides,
  };
}

async function authFailure(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

describe('OAuthTokenCache against oauth2-mock-server', () => {
  it('gets a client-credentials token with Basic client authentication and the scopes', async () => {
    const token = await cache.getToken(request(), { send });

    const payload = jwtPayload(token);
    expect(payload.iss).toBe(oauth.issuerUrl);
    expect(payload.client_id).toBe('baton-client');
    expect(payload.scope).toBe('read write');
    expect(oauth.seen).toHaveLength(1);
    const seen = oauth.seen[0];
    expect(seen?.contentType).toBe('application/x-www-form-urlencoded');
    expect(seen?.basic).toEqual({ clientId: 'baton-client', clientSecret: SECRET });
    // client_secret_basic: the secret travels only in the header, never in the form.
    expect(seen?.body).toEqual({ grant_type: 'client_credentials', scope: 'read write' });
  });

  it('leaves scope out when there are no scopes', async () => {
    const token = await cache.getToken(request({ scopes: [] }), { send });
    expect(oauth.seen[0]?.body).toEqual({ grant_type: 'client_credentials' });
    expect(jwtPayload(token).scope).toBeUndefined();
  });

  it('reuses the cached token: two calls, one token request', async () => {
    const first = await cache.getToken(request(), { send });
    const second = await cache.getToken(request(), { send });
    expect(second).toBe(first);
    expect(oauth.seen).toHaveLength(1);
  });

  it('fetches a new token once the cached one is within the safety margin of expiry', async () => {
    oauth.expiresIn = 120; // used for 120 s - 30 s margin = 90 s
    const start = clock.now;
    const first = await cache.getToken(request(), { send });
    clock.now = start + 89_000;
    expect(await cache.getToken(request(), { send })).toBe(first);
    expect(oauth.seen).toHaveLength(1);

    clock.now = start + 90_000;
    const refreshed = await cache.getToken(request(), { send });
    expect(refreshed).not.toBe(first);
    expect(oauth.seen).toHaveLength(2);
    clock.now = start;
  });

  it('uses a short-lived token for half its lifetime rather than refetching every call', async () => {
    oauth.expiresIn = 40; // 40 s - 30 s would leave 10 s: half (20 s) wins
    const start = clock.now;
    const first = await cache.getToken(request(), { send });
    clock.now = start + 19_000;
    expect(await cache.getToken(request(), { send })).toBe(first);
    clock.now = start + 20_000;
    expect(await cache.getToken(request(), { send })).not.toBe(first);
    expect(oauth.seen).toHaveLength(2);
    clock.now = start;
  });

  it('keeps a token without expires_in for 5 minutes', async () => {
    oauth.expiresIn = undefined;
    const start = clock.now;
    const first = await cache.getToken(request(), { send });
    clock.now = start + 299_000;
    expect(await cache.getToken(request(), { send })).toBe(first);
    expect(oauth.seen).toHaveLength(1);
    clock.now = start + 300_000;
    expect(await cache.getToken(request(), { send })).not.toBe(first);
    clock.now = start;
  });

  it('shares one in-flight request among concurrent callers', async () => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => cache.getToken(request(), { send })));
    expect(new Set(tokens).size).toBe(1);
    expect(oauth.seen).toHaveLength(1);
  });

  it('keeps separate tokens per client, scopes and secret', async () => {
    const a = await cache.getToken(request(), { send });
    const b = await cache.getToken(request({ clientId: 'other-client' }), { send });
    const c = await cache.getToken(request({ scopes: ['read'] }), { send });
    const d = await cache.getToken(request({ clientSecret: 'rotated-secret' }), { send });
    expect(new Set([a, b, c, d]).size).toBe(4);
    expect(jwtPayload(b).client_id).toBe('other-client');
    expect(oauth.seen.map((s) => s.basic?.clientSecret)).toEqual([SECRET, SECRET, SECRET, 'rotated-secret']);
    // Same scopes in another order: the same grant, the cached token.
    expect(await cache.getToken(request({ scopes: ['write', 'read'] }), { send })).toBe(a);
    expect(oauth.seen).toHaveLength(4);
  });

  it('fetches again after invalidate (a 401 from the API)', async () => {
    const first = await cache.getToken(request(), { send });
    expect(cache.invalidate(request(), first)).toBe(true);
    const second = await cache.getToken(request(), { send });
    expect(second).not.toBe(first);
    // A stale token's invalidate must not drop the fresh one another caller already got.
    expect(cache.invalidate(request(), first)).toBe(false);
    expect(await cache.getToken(request(), { send })).toBe(second);
    expect(oauth.seen).toHaveLength(2);
  });

  it('reports invalid_client with the endpoint and status, without the secret, and does not cache the failure', async () => {
    oauth.failWith = {
      status: 401,
      body: { error: 'invalid_client', error_description: 'Client authentication failed' },
    };
    const error = await authFailure(cache.getToken(request(), { send }));
    expect(error.code).toBe('token_request_failed');
    expect(error.message).toContain(`The token endpoint ${oauth.tokenEndpoint} refused`);
    expect(error.message).toContain('HTTP 401: invalid_client — Client authentication failed');
    expect(error.message).toContain('oauthConfig.clientSecretVersion');
    expect(error.message).not.toContain('s3cr3t');

    oauth.failWith = undefined;
    await cache.getToken(request(), { send });
    expect(oauth.seen).toHaveLength(2);
  });

  it('redacts a secret the server echoes in a 500 body, and never shows the query string', async () => {
    oauth.failWith = { status: 500, body: { error: 'server_error', error_description: `could not check ${SECRET}` } };
    const endpoint = `${oauth.tokenEndpoint}?tenant=private-tenant`;
    const error = await authFailure(cache.getToken(request({ tokenEndpoint: endpoint }), { send }));
    expect(error.code).toBe('token_request_failed');
    expect(error.message).toContain(`${oauth.tokenEndpoint} refused`);
    expect(error.message).toContain('HTTP 500: server_error — could not check [redacted]');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain('private-tenant');
  });

  it('is refused by the egress guard when loopback is not allowed', async () => {
    const guarded = safeFetchTokenSender({ policy: { allow: [] }, agents, timeoutMs: 5_000 });
    const error = await authFailure(cache.getToken(request(), { send: guarded }));
    expect(error.code).toBe('token_request_failed');
    expect(error.cause).toBeInstanceOf(EgressError);
    expect((error.cause as EgressError).code).toBe('blocked_address');
    expect(error.message).toContain(`Could not get an OAuth access token from ${oauth.tokenEndpoint}`);
    expect(error.message).toContain('"127.0.0.1/32"');
    expect(error.message).toContain('egress.allow');
    expect(oauth.seen).toHaveLength(0);
  });
});
