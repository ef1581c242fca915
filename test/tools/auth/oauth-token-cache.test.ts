import { beforeEach, describe, expect, it } from 'vitest';
import { AuthError } from '../../../src/tools/auth/auth-error.ts';
import { OAuthTokenCache, type ClientCredentialsRequest } from '../../../src/tools/auth/oauth-token-cache.ts';
import { basicCredentials } from '../../../src/tools/auth/oauth-token-request.ts';
import { deferred, fakeTokenSender, json, type FakeTokenSender } from './fake-token-sender.ts';

const SECRET = 'top-secret-value';
const ENDPOINT = 'https://auth.example.com/oauth2/token';
const REQUEST: ClientCredentialsRequest = {
  tokenEndpoint: ENDPOINT,
  clientId: 'client-1',
  clientSecret: SECRET,
  scopes: ['a', 'b'],
};

let fake: FakeTokenSender;
const clock = { now: 0 };
let cache: OAuthTokenCache;

beforeEach(() => {
  fake = fakeTokenSender();
  clock.now = 1_000_000;
  cache = new OAuthTokenCache({ now: () => clock.now });
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );
}

async function authFailure(promise: Promise<unknown>): Promise<AuthError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

describe('the token request', () => {
  it('is a form POST with client_secret_basic, form-urlencoding id and secret first', async () => {
    await cache.getToken({ ...REQUEST, clientId: 'my client', clientSecret: 'p@ss:w/rd' }, { send: fake.send });
    const call = fake.calls[0];
    expect(call?.url).toBe(ENDPOINT);
    expect(call?.init.method).toBe('POST');
    expect(call?.init.body).toBe('grant_type=client_credentials&scope=a+b');
    expect(call?.init.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const basic = call?.init.headers.authorization ?? '';
    expect(Buffer.from(basic.replace(/^Basic /, ''), 'base64').toString()).toBe('my+client:p%40ss%3Aw%2Frd');
    expect(basicCredentials('id', 'secret')).toBe(Buffer.from('id:secret').toString('base64'));
  });
});

describe('token responses', () => {
  it('accepts expires_in as a numeric string', async () => {
    fake.queue.push(json(200, { access_token: 'tok', token_type: 'bearer', expires_in: '60' }));
    await cache.getToken(REQUEST, { send: fake.send });
    clock.now += 29_000; // 60 s - 30 s margin
    await cache.getToken(REQUEST, { send: fake.send });
    expect(fake.calls).toHaveLength(1);
    clock.now += 1_000;
    await cache.getToken(REQUEST, { send: fake.send });
    expect(fake.calls).toHaveLength(2);
  });

  it('caps a token lifetime at 24 hours', async () => {
    fake.queue.push(json(200, { access_token: 'tok', expires_in: 3_600_000 }));
    await cache.getToken(REQUEST, { send: fake.send });
    clock.now += 24 * 3600_000;
    await cache.getToken(REQUEST, { send: fake.send });
    expect(fake.calls).toHaveLength(2);
  });

  it.each([
    ['a non-JSON body', { status: 200, body: 'access_token=tok-in-form&token_type=bearer' }, 'not with a JSON object'],
    ['no access_token', json(200, { token: 'tok-in-form' }), 'has no access_token string (keys: token)'],
    ['a non-Bearer token type', json(200, { access_token: 'tok-in-form', token_type: 'mac' }), 'token_type "mac"'],
    [
      'a token that cannot be a header',
      json(200, { access_token: 'tok-in-form\r\nx: y' }),
      'cannot be sent in an Authorization header',
    ],
  ])('refuses %s without quoting the body', async (_name, answer, words) => {
    fake.queue.push(answer);
    const error = await authFailure(cache.getToken(REQUEST, { send: fake.send }));
    expect(error.code).toBe('token_response_invalid');
    expect(error.message).toContain(`The token endpoint ${ENDPOINT} answered 2xx but`);
    expect(error.message).toContain(words);
    expect(error.message).not.toContain('tok-in-form');
    expect(cache.size).toBe(0);
  });

  it('quotes at most 300 characters of a non-OAuth error body, tags stripped', async () => {
    fake.queue.push({ status: 502, body: `<html><body><h1>Bad Gateway</h1>${'x'.repeat(1000)}</body></html>` });
    const error = await authFailure(cache.getToken(REQUEST, { send: fake.send }));
    expect(error.message).toContain('HTTP 502: Bad Gateway xxx');
    expect(error.message).not.toContain('<h1>');
    const excerpt = /HTTP 502: (.*)…\./.exec(error.message)?.[1];
    expect(excerpt).toBe(`Bad Gateway ${'x'.repeat(288)}`); // 300 characters
  });

  it('redacts the secret and its Basic encoding from an error body', async () => {
    const echoed = `got ${SECRET} in Basic ${basicCredentials('client-1', SECRET)}`;
    fake.queue.push(json(400, { error: 'invalid_request', error_description: echoed }));
    const error = await authFailure(cache.getToken(REQUEST, { send: fake.send }));
    expect(error.message).toContain('invalid_request — got [redacted] in Basic [redacted]');
    expect(error.message).not.toContain(SECRET);
  });

  it('redacts a secret with quotes and backslashes from a JSON body quoted as is', async () => {
    const secret = 'se"cr\\et  with spaces';
    // Not an RFC 6749 error body, so the excerpt is the JSON text, where the secret is escaped.
    fake.queue.push(json(400, { message: `client secret ${secret} is wrong` }));
    const error = await authFailure(cache.getToken({ ...REQUEST, clientSecret: secret }, { send: fake.send }));
    expect(error.message).toContain('{"message":"client secret [redacted] is wrong"}');
    expect(error.message).not.toContain('cr\\\\et');
  });

  it('wraps a network failure, naming the endpoint without its query', async () => {
    fake.queue.push(new Error(`connect ECONNREFUSED for ${ENDPOINT}?key=hidden`));
    const error = await authFailure(
      cache.getToken({ ...REQUEST, tokenEndpoint: `${ENDPOINT}?key=hidden` }, { send: fake.send }),
    );
    expect(error.code).toBe('token_request_failed');
    expect(error.message).toBe(
      `Could not get an OAuth access token from ${ENDPOINT} (oauthConfig.tokenEndpoint): connect ECONNREFUSED for ${ENDPOINT}`,
    );
  });
});

describe('single flight and cancellation', () => {
  it('does not cache a failure, and callers sharing the flight all see it', async () => {
    const gate = deferred();
    fake.gate = gate.promise;
    fake.queue.push(json(503, { error: 'temporarily_unavailable' }));
    const both = Promise.allSettled([
      cache.getToken(REQUEST, { send: fake.send }),
      cache.getToken(REQUEST, { send: fake.send }),
    ]);
    gate.release();
    const results = await both;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(fake.calls).toHaveLength(1);
    fake.gate = undefined;
    expect(await cache.getToken(REQUEST, { send: fake.send })).toBe('token-2');
  });

  it('lets one waiter give up without cancelling the request for the others', async () => {
    const gate = deferred();
    fake.gate = gate.promise;
    const leaving = new AbortController();
    const first = cache.getToken(REQUEST, { send: fake.send, signal: leaving.signal });
    const second = cache.getToken(REQUEST, { send: fake.send, signal: new AbortController().signal });
    leaving.abort(new Error('user went away'));
    expect(((await failure(first)) as Error).message).toBe('user went away');
    expect(fake.calls[0]?.init.signal?.aborted).toBe(false);
    gate.release();
    expect(await second).toBe('token-1');
    expect(fake.calls).toHaveLength(1);
  });

  it('cancels the request when every waiter gave up, and starts afresh for the next caller', async () => {
    const gate = deferred();
    fake.gate = gate.promise;
    const controller = new AbortController();
    const only = cache.getToken(REQUEST, { send: fake.send, signal: controller.signal });
    controller.abort(new Error('turn cancelled'));
    await failure(only);
    expect(fake.calls[0]?.init.signal?.aborted).toBe(true);

    const next = cache.getToken(REQUEST, { send: fake.send });
    gate.release();
    expect(await next).toBe('token-2');
    expect(fake.calls).toHaveLength(2);
  });

  it('rejects at once for an already-aborted signal', async () => {
    const error = await failure(
      cache.getToken(REQUEST, { send: fake.send, signal: AbortSignal.abort(new Error('already')) }),
    );
    expect((error as Error).message).toBe('already');
    expect(fake.calls).toHaveLength(0);
  });
});

describe('bounds', () => {
  it('evicts the oldest token beyond maxEntries', async () => {
    cache = new OAuthTokenCache({ now: () => clock.now, maxEntries: 2 });
    const client = (clientId: string): ClientCredentialsRequest => ({ ...REQUEST, clientId });
    await cache.getToken(client('one'), { send: fake.send });
    await cache.getToken(client('two'), { send: fake.send });
    await cache.getToken(client('three'), { send: fake.send });
    expect(cache.size).toBe(2);
    expect(await cache.getToken(client('three'), { send: fake.send })).toBe('token-3');
    expect(await cache.getToken(client('two'), { send: fake.send })).toBe('token-2');
    expect(await cache.getToken(client('one'), { send: fake.send })).toBe('token-4');
  });

  it('does not keep a token that expires at once', async () => {
    fake.queue.push(json(200, { access_token: 'short', expires_in: 0 }));
    expect(await cache.getToken(REQUEST, { send: fake.send })).toBe('short');
    expect(cache.size).toBe(0);
  });
});
