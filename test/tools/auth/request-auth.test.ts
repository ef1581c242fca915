import { beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/domain/records.ts';
import { AuthError } from '../../../src/tools/auth/auth-error.ts';
import { OAuthTokenCache } from '../../../src/tools/auth/oauth-token-cache.ts';
import {
  contextVariableName,
  invalidateRequestAuth,
  resolveContextVariables,
  resolveRequestAuth,
  type AuthDependencies,
} from '../../../src/tools/auth/request-auth.ts';
import { fakeTokenSender, json, type FakeTokenSender } from './fake-token-sender.ts';

const FIELD = 'toolset.openApiToolset.apiAuthentication';
const KEY_REF = 'projects/p/locations/l/apps/a/secrets/api-key';
const CLIENT_REF = 'projects/p/locations/l/apps/a/secrets/client-secret';
const SECRETS: Record<string, string> = { [KEY_REF]: 'key-VALUE-123\n', [CLIENT_REF]: 'client-SECRET-456' };

let fake: FakeTokenSender;
let reads: Array<[string, string]>;

beforeEach(() => {
  fake = fakeTokenSender();
  reads = [];
});

function deps(variables: Record<string, JsonValue> = {}, overrides: Partial<AuthDependencies> = {}): AuthDependencies {
  return {
    readSecret: async (reference, field) => {
      reads.push([reference, field]);
      const value = SECRETS[reference];
      if (value === undefined)
        throw new AuthError('secret_unavailable', `${field}: secret '${reference}' does not exist.`);
      return value;
    },
    variables,
    oauth: new OAuthTokenCache(),
    send: fake.send,
    field: FIELD,
    ...overrides,
  };
}

async function authFailure(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => expect.fail('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

const apiKey = (requestLocation: string, ref = KEY_REF): JsonObject => ({
  apiKeyConfig: { keyName: 'X-Api-Key', apiKeySecretVersion: ref, requestLocation },
});
const bearer: JsonObject = { bearerTokenConfig: { token: '$context.variables.user_token' } };
const oauthConfig: JsonObject = {
  oauthConfig: {
    oauthGrantType: 'CLIENT_CREDENTIAL',
    clientId: 'client-1',
    clientSecretVersion: CLIENT_REF,
    tokenEndpoint: 'https://auth.example.com/token',
    scopes: ['read'],
  },
};

describe('resolveRequestAuth', () => {
  it('returns nothing without apiAuthentication', async () => {
    expect(await resolveRequestAuth(undefined, deps())).toEqual({});
  });

  it('puts an API key in a header, reading the secret with its field', async () => {
    expect(await resolveRequestAuth(apiKey('HEADER'), deps())).toEqual({ headers: { 'X-Api-Key': 'key-VALUE-123' } });
    expect(reads).toEqual([[KEY_REF, `${FIELD}.apiKeyConfig.apiKeySecretVersion`]]);
  });

  it('puts an API key in the query string', async () => {
    expect(await resolveRequestAuth(apiKey('QUERY_STRING'), deps())).toEqual({
      query: { 'X-Api-Key': 'key-VALUE-123' },
    });
  });

  it('sends a bearer token from a session variable; a number is written out', async () => {
    expect(await resolveRequestAuth(bearer, deps({ user_token: ' abc.def ' }))).toEqual({
      headers: { Authorization: 'Bearer abc.def' },
    });
    expect(await resolveRequestAuth(bearer, deps({ user_token: 12345 }))).toEqual({
      headers: { Authorization: 'Bearer 12345' },
    });
  });

  it('names the bearer variable the session did not set', async () => {
    const error = await authFailure(resolveRequestAuth(bearer, deps({ other: 'x' })));
    expect(error.code).toBe('missing_variable');
    expect(error.message).toBe(
      `${FIELD}.bearerTokenConfig.token refers to session variable 'user_token', which this session has not set; send it in the session's variables.`,
    );
  });

  it.each([
    [{ user_token: '' }, 'which is empty'],
    [{ user_token: true }, 'which is a boolean'],
    [{ user_token: null }, 'which is null'],
    [{ user_token: { nested: 'secret-in-object' } }, 'which is an object'],
  ])('refuses an unusable bearer variable %j', async (variables, words) => {
    const error = await authFailure(resolveRequestAuth(bearer, deps(variables)));
    expect(error.code).toBe('missing_variable');
    expect(error.message).toContain(`session variable 'user_token', ${words}`);
    expect(error.message).not.toContain('secret-in-object');
  });

  it('refuses a bearer value that would split the header, without quoting it', async () => {
    const error = await authFailure(resolveRequestAuth(bearer, deps({ user_token: 'tok-LEAK\r\nX-Evil: 1' })));
    expect(error.code).toBe('missing_variable');
    expect(error.message).toContain('cannot be sent in an HTTP header');
    expect(error.message).not.toContain('tok-LEAK');
  });

  it('gets an OAuth token through the cache and sends it as Bearer', async () => {
    const d = deps();
    expect(await resolveRequestAuth(oauthConfig, d)).toEqual({ headers: { Authorization: 'Bearer token-1' } });
    expect(await resolveRequestAuth(oauthConfig, d)).toEqual({ headers: { Authorization: 'Bearer token-1' } });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]?.url).toBe('https://auth.example.com/token');
    expect(fake.calls[0]?.init.body).toBe('grant_type=client_credentials&scope=read');
    expect(reads.map(([, field]) => field)).toEqual([
      `${FIELD}.oauthConfig.clientSecretVersion`,
      `${FIELD}.oauthConfig.clientSecretVersion`,
    ]);
  });

  it('drops the OAuth token that got a 401, so the next call fetches another', async () => {
    const d = deps();
    const sent = await resolveRequestAuth(oauthConfig, d);
    expect(await invalidateRequestAuth(oauthConfig, d, sent)).toBe(true);
    expect(await resolveRequestAuth(oauthConfig, d)).toEqual({ headers: { Authorization: 'Bearer token-2' } });
    expect(await invalidateRequestAuth(oauthConfig, d, sent)).toBe(false); // already replaced
    expect(await invalidateRequestAuth(apiKey('HEADER'), d)).toBe(false);
  });

  it('passes the abort signal to the token request', async () => {
    const signal = new AbortController().signal;
    await resolveRequestAuth(oauthConfig, deps({}, { signal }));
    expect(fake.calls[0]?.init.signal).toBeInstanceOf(AbortSignal);
    const aborted = AbortSignal.abort(new Error('cancelled'));
    await expect(resolveRequestAuth(oauthConfig, deps({}, { signal: aborted }))).rejects.toThrow('cancelled');
  });
});

describe('secrets never appear in error messages', () => {
  it('wraps a secret store failure naming the field and the secret resource', async () => {
    const d = deps({}, { readSecret: async () => Promise.reject(new Error('decryption failed: wrong key')) });
    const error = await authFailure(resolveRequestAuth(apiKey('HEADER'), d));
    expect(error.code).toBe('secret_unavailable');
    expect(error.message).toBe(
      `${FIELD}.apiKeyConfig.apiKeySecretVersion: could not read secret '${KEY_REF}': decryption failed: wrong key`,
    );
  });

  it("passes the store's own AuthError through", async () => {
    const error = await authFailure(
      resolveRequestAuth(apiKey('HEADER', 'projects/p/locations/l/apps/a/secrets/gone'), deps()),
    );
    expect(error.message).toBe(
      `${FIELD}.apiKeyConfig.apiKeySecretVersion: secret 'projects/p/locations/l/apps/a/secrets/gone' does not exist.`,
    );
  });

  it('refuses a header secret with a line break inside, without quoting it', async () => {
    const d = deps({}, { readSecret: async () => 'key-LEAK\r\nX-Injected: yes' });
    const error = await authFailure(resolveRequestAuth(apiKey('HEADER'), d));
    expect(error.code).toBe('secret_unavailable');
    expect(error.message).toContain(`secret '${KEY_REF}' has control characters`);
    expect(error.message).not.toContain('key-LEAK');
  });

  it('refuses an empty secret', async () => {
    const error = await authFailure(resolveRequestAuth(apiKey('HEADER'), deps({}, { readSecret: async () => ' \n' })));
    expect(error.message).toBe(
      `${FIELD}.apiKeyConfig.apiKeySecretVersion: secret '${KEY_REF}' is empty; store the credential in it.`,
    );
  });

  it('keeps the client secret out of a token endpoint failure that echoes it', async () => {
    fake.queue.push(json(401, { error: 'invalid_client', error_description: 'bad secret client-SECRET-456' }));
    const error = await authFailure(resolveRequestAuth(oauthConfig, deps()));
    expect(error.code).toBe('token_request_failed');
    expect(error.message).toContain('https://auth.example.com/token');
    expect(error.message).toContain('HTTP 401: invalid_client — bad secret [redacted]');
    expect(error.message).not.toContain('client-SECRET-456');
  });
});

describe('session variable references', () => {
  it('parses $context.variables.NAME', () => {
    expect(contextVariableName('$context.variables.user_token')).toBe('user_token');
    expect(contextVariableName('$context.variables._x9')).toBe('_x9');
    expect(contextVariableName('$context.variables.9x')).toBeUndefined();
    expect(contextVariableName('$context.variables.a-b')).toBeUndefined();
    expect(contextVariableName('Bearer $context.variables.a')).toBeUndefined();
    expect(contextVariableName('$context.variables.')).toBeUndefined();
  });

  it('resolves customHeaders, sending non-references as written', () => {
    const headers = resolveContextVariables(
      { 'X-Tenant': '$context.variables.tenant', 'X-Version': '2024-01', 'X-Count': '$context.variables.count' },
      { tenant: 'acme', count: 3 },
      'toolset.mcpToolset.customHeaders',
    );
    expect(headers).toEqual({ 'X-Tenant': 'acme', 'X-Version': '2024-01', 'X-Count': '3' });
    expect(resolveContextVariables(undefined, {}, 'f')).toEqual({});
  });

  it('names the header and the variable when a custom header variable is missing', () => {
    const resolve = (): unknown =>
      resolveContextVariables({ 'X-Tenant': '$context.variables.tenant' }, {}, 'toolset.mcpToolset.customHeaders');
    expect(resolve).toThrow(AuthError);
    expect(resolve).toThrow(
      "toolset.mcpToolset.customHeaders.X-Tenant refers to session variable 'tenant', which this session has not set; send it in the session's variables.",
    );
  });

  it('does not read inherited properties as variables', () => {
    expect(() => resolveContextVariables({ h: '$context.variables.constructor' }, {}, 'f')).toThrow('has not set');
  });
});
