import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/domain/records.ts';
import { OAuthTokenCache } from '../../../src/tools/auth/oauth-token-cache.ts';
import { resolveRequestAuth, type RequestAuth } from '../../../src/tools/auth/request-auth.ts';
import { safeFetchTokenSender } from '../../../src/tools/auth/token-sender.ts';
import { GuardedAgentPool } from '../../../src/tools/http/guarded-agent.ts';
import { guardedFetch } from '../../../src/tools/http/guarded-fetch.ts';
import { OpenApiToolset } from '../../../src/tools/openapi/openapi-toolset.ts';
import { safeFetchSend } from '../../../src/tools/openapi/safe-fetch-send.ts';
import { startServer, type LocalServer } from '../http/local-servers.ts';

/**
 * Credentials from a toolset's auth config never reach another origin through a redirect,
 * whatever the header or query parameter is called. Two real servers on 127.0.0.1: `api`
 * (where the toolset points) and `elsewhere` (another port, so another origin).
 */

const LOOPBACK = { allow: ['127.0.0.1/32'] };
const KEY_REF = 'projects/p/locations/l/apps/a/secrets/api-key';
const CLIENT_REF = 'projects/p/locations/l/apps/a/secrets/client-secret';
const API_KEY = 'key-Q7v9-secret';
const CLIENT_SECRET = 'client-S3cret-value';
const USER_TOKEN = 'user-token-8f2c';

const agents = new GuardedAgentPool();
let api: LocalServer;
let elsewhere: LocalServer;

/** Echoes what arrived, so a test sees the headers and the query of the last hop. */
function echo(req: { url?: string | undefined; headers: object }, res: import('node:http').ServerResponse): void {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ url: req.url, headers: req.headers }));
}

beforeAll(async () => {
  elsewhere = await startServer((req, res) => {
    if (req.url?.startsWith('/token')) {
      // Answers even without client authentication, so the test can go on and look at what arrived.
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ access_token: 'token-from-elsewhere', token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    echo(req, res);
  });
  api = await startServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/away') || path.startsWith('/token')) {
      // The API moved to another host, path and query kept (the usual form of such a redirect).
      res.writeHead(307, { location: `${elsewhere.origin}${path}` });
      res.end();
    } else if (path.startsWith('/here')) {
      res.writeHead(302, { location: path.replace('/here', '/echo') });
      res.end();
    } else {
      echo(req, res);
    }
  });
});

afterAll(async () => {
  await agents.close();
  await Promise.all([api.close(), elsewhere.close()]);
});

beforeEach(() => {
  api.hits.length = 0;
  elsewhere.hits.length = 0;
});

const DOCUMENT = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Moved', version: '1' },
  servers: [{ url: 'http://placeholder.invalid' }],
  paths: {
    '/away': {
      get: {
        operationId: 'away',
        parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/here': {
      get: {
        operationId: 'here',
        parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
});

/** Resolves `apiAuthentication` as a tool call does, with secrets and session variables of the test. */
async function credentialsOf(apiAuthentication: JsonObject): Promise<RequestAuth> {
  const secrets: Record<string, string> = { [KEY_REF]: API_KEY, [CLIENT_REF]: CLIENT_SECRET };
  return resolveRequestAuth(apiAuthentication, {
    readSecret: async (reference) => secrets[reference] ?? '',
    variables: { user_token: USER_TOKEN },
    oauth: new OAuthTokenCache(),
    send: safeFetchTokenSender({ policy: LOOPBACK, agents, timeoutMs: 5_000 }),
    field: 'toolset.openApiToolset.apiAuthentication',
  });
}

/** Calls one operation of the toolset with those credentials, through the production `send`. */
async function call(operation: 'away' | 'here', auth: RequestAuth): Promise<{ url: string; headers: JsonObject }> {
  const toolset = await OpenApiToolset.fromText(DOCUMENT, { url: api.origin });
  const send = safeFetchSend({
    policy: LOOPBACK,
    timeoutMs: 5_000,
    maxResponseBytes: 100_000,
    signal: new AbortController().signal,
  });
  const output = await toolset.call(operation, { q: 'lamps' }, { send, auth });
  expect(output.isError, output.text).toBe(false);
  return JSON.parse(output.text) as { url: string; headers: JsonObject };
}

const apiKey = (requestLocation: string, keyName: string): JsonObject => ({
  apiKeyConfig: { keyName, apiKeySecretVersion: KEY_REF, requestLocation },
});

describe('credentials on a cross-origin redirect', () => {
  it('drops an API key sent in a custom-named header', async () => {
    const seen = await call('away', await credentialsOf(apiKey('HEADER', 'X-Custom-Key')));
    expect(api.hits[0]?.headers['x-custom-key']).toBe(API_KEY);
    expect(elsewhere.hits).toHaveLength(1);
    expect(seen.url).toBe('/away?q=lamps');
    expect(seen.headers['x-custom-key']).toBeUndefined();
    expect(JSON.stringify(elsewhere.hits)).not.toContain(API_KEY);
  });

  it('drops an API key sent as a query parameter, keeping the other parameters', async () => {
    const seen = await call('away', await credentialsOf(apiKey('QUERY_STRING', 'api_key')));
    expect(api.hits[0]?.url).toBe(`/away?q=lamps&api_key=${API_KEY}`);
    expect(seen.url).toBe('/away?q=lamps');
    expect(JSON.stringify(elsewhere.hits)).not.toContain(API_KEY);
  });

  it('drops a bearer token from the session', async () => {
    const seen = await call(
      'away',
      await credentialsOf({ bearerTokenConfig: { token: '$context.variables.user_token' } }),
    );
    expect(api.hits[0]?.headers.authorization).toBe(`Bearer ${USER_TOKEN}`);
    expect(seen.headers.authorization).toBeUndefined();
    expect(JSON.stringify(elsewhere.hits)).not.toContain(USER_TOKEN);
  });

  it('drops the Basic client authentication of a token request and the bearer token of the call', async () => {
    const auth = await credentialsOf({
      oauthConfig: {
        clientId: 'baton-client',
        clientSecretVersion: CLIENT_REF,
        tokenEndpoint: `${api.origin}/token`,
      },
    });
    // The token request went to `api`, which sent it on to `elsewhere` with a 307 (body kept).
    const tokenHop = api.hits.find((hit) => hit.url === '/token');
    expect(tokenHop?.headers.authorization).toMatch(/^Basic /);
    const moved = elsewhere.hits.find((hit) => hit.url === '/token');
    expect(moved?.method).toBe('POST');
    expect(moved?.headers.authorization).toBeUndefined();
    expect(auth.headers?.Authorization).toBe('Bearer token-from-elsewhere');

    const seen = await call('away', auth);
    expect(seen.headers.authorization).toBeUndefined();
    const basic = Buffer.from(`baton-client:${CLIENT_SECRET}`).toString('base64');
    for (const value of [basic, CLIENT_SECRET, 'token-from-elsewhere'])
      expect(JSON.stringify(elsewhere.hits.map((hit) => hit.headers))).not.toContain(value);
  });

  it('drops every credential of a config with several at once, whatever their names', async () => {
    const header = await credentialsOf(apiKey('HEADER', 'X-Tenant-Secret'));
    const bearer = await credentialsOf({ bearerTokenConfig: { token: '$context.variables.user_token' } });
    const query = await credentialsOf(apiKey('QUERY_STRING', 'sig'));
    const seen = await call('away', {
      headers: { ...header.headers, ...bearer.headers },
      query: query.query ?? {},
    });
    expect(seen.url).toBe('/away?q=lamps');
    expect(seen.headers['x-tenant-secret']).toBeUndefined();
    expect(seen.headers.authorization).toBeUndefined();
  });
});

describe('credentials on a same-origin redirect', () => {
  it('keeps the custom header, the query parameter and the bearer token', async () => {
    const header = await credentialsOf(apiKey('HEADER', 'X-Custom-Key'));
    const query = await credentialsOf(apiKey('QUERY_STRING', 'api_key'));
    const bearer = await credentialsOf({ bearerTokenConfig: { token: '$context.variables.user_token' } });
    const seen = await call('here', { headers: { ...header.headers, ...bearer.headers }, query: query.query ?? {} });
    expect(elsewhere.hits).toHaveLength(0);
    expect(seen.url).toBe(`/echo?q=lamps&api_key=${API_KEY}`);
    expect(seen.headers['x-custom-key']).toBe(API_KEY);
    expect(seen.headers.authorization).toBe(`Bearer ${USER_TOKEN}`);
  });
});

describe('guardedFetch (streaming clients) with the credentials it is told about', () => {
  it('drops the named header and query parameter on a cross-origin redirect only', async () => {
    const fetch = guardedFetch(LOOPBACK, {
      agents,
      credentials: { headers: ['X-Custom-Key'], query: ['api_key'] },
    });
    const init = { headers: { 'x-custom-key': API_KEY, 'x-trace': 'keep' } };
    const away = await fetch(`${api.origin}/away?api_key=${API_KEY}&q=1`, init);
    const seenAway = (await away.json()) as { url: string; headers: JsonObject };
    expect(seenAway.url).toBe('/away?q=1');
    expect(seenAway.headers['x-custom-key']).toBeUndefined();
    expect(seenAway.headers['x-trace']).toBe('keep');

    const here = await fetch(`${api.origin}/here?api_key=${API_KEY}`, init);
    const seenHere = (await here.json()) as { url: string; headers: JsonObject };
    expect(seenHere.url).toBe(`/echo?api_key=${API_KEY}`);
    expect(seenHere.headers['x-custom-key']).toBe(API_KEY);
  });
});

describe('an MCP toolset client', () => {
  it('never sends a custom-named credential header to another origin its server redirects to', async () => {
    const { McpToolsetClients } = await import('../../../src/tools/mcp/mcp-toolset-client.ts');
    const clients = new McpToolsetClients();
    try {
      await expect(
        clients.listTools({
          serverAddress: `${api.origin}/away/mcp`,
          headers: { 'X-Custom-Key': API_KEY, 'X-Session': 'kept' },
          credentialHeaders: ['X-Custom-Key'],
          policy: LOOPBACK,
          timeoutMs: 5_000,
        }),
      ).rejects.toThrow(/not followed/); // MCP follows same-origin redirects only
    } finally {
      await clients.close();
    }
    expect(api.hits.length).toBeGreaterThan(0);
    // Nothing reached the other origin; were a redirect ever followed, the credential header is named for stripping.
    expect(elsewhere.hits).toEqual([]);
  });
});
