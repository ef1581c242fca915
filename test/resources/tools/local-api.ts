/**
 * A local HTTP API (node:http) with the behaviours the end-to-end tool tests need: a plain
 * answer, a 500 with an explanation, a slow answer, a huge body, redirects, and endpoints that
 * check an API key or a bearer token. Every request is recorded (see LocalServer.hits).
 */
import type http from 'node:http';
import { startServer, type LocalServer } from '../../tools/http/local-servers.ts';
import { localApiDocument, type LocalOperation } from './provider-fixtures.ts';

/** What the /broken endpoint explains in its 500 body. */
export const BROKEN_EXPLANATION = 'the orders database is on fire';
/** Size of the /huge body: well past the 100 000-byte cap of tool results. */
export const HUGE_BYTES = 300_000;

export interface LocalApiOptions {
  /** The API key /keyed accepts, in header `x-api-key` or query parameter `key`. */
  apiKey?: string;
  /** Bearer tokens /me accepts; a function so an OAuth test can check against its issuer. */
  acceptsBearer?: (token: string) => boolean;
}

export interface LocalApi {
  server: LocalServer;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Requests that reached `path` (query string ignored). */
  hitsOf(path: string): LocalServer['hits'];
  close(): Promise<void>;
}

/** Every operation of the local API, for `localApiDocument`. */
export const LOCAL_OPERATIONS: LocalOperation[] = [
  { method: 'get', path: '/ok', operationId: 'getOk' },
  { method: 'get', path: '/broken', operationId: 'getBroken' },
  { method: 'get', path: '/slow', operationId: 'getSlow' },
  { method: 'get', path: '/huge', operationId: 'getHuge' },
  { method: 'get', path: '/hop', operationId: 'getHop', query: ['to'] },
  { method: 'get', path: '/keyed', operationId: 'getKeyed', query: ['q'] },
  { method: 'get', path: '/me', operationId: 'getMe' },
];

/** The OpenAPI document of the local API at `serverUrl`, restricted to some operations. */
export function localApiSchema(serverUrl: string, operationIds?: string[]): string {
  const operations = operationIds
    ? LOCAL_OPERATIONS.filter((operation) => operationIds.includes(operation.operationId))
    : LOCAL_OPERATIONS;
  return localApiDocument(serverUrl, operations);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startLocalApi(options: LocalApiOptions = {}): Promise<LocalApi> {
  const server = await startServer((req, res, self) => {
    const url = new URL(req.url ?? '/', self.origin);
    switch (url.pathname) {
      case '/ok':
      case '/x':
        return json(res, 200, { reached: url.pathname });
      case '/broken':
        return json(res, 500, { error: BROKEN_EXPLANATION });
      case '/slow':
        setTimeout(() => json(res, 200, { late: true }), 5_000).unref();
        return;
      case '/huge':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('h'.repeat(HUGE_BYTES));
        return;
      case '/hop':
        // Redirects to `to`, with this request's query string (minus `to`) kept, as many APIs do.
        res.writeHead(302, { location: redirectTarget(url) });
        res.end();
        return;
      case '/keyed': {
        const sent = req.headers['x-api-key'] ?? url.searchParams.get('key');
        if (options.apiKey === undefined || sent !== options.apiKey)
          return json(res, 401, { error: 'missing or wrong API key' });
        return json(res, 200, { authorized: true, q: url.searchParams.get('q') });
      }
      case '/me': {
        const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
        if (!match?.[1] || !options.acceptsBearer?.(match[1]))
          return json(res, 401, { error: 'bearer token required' });
        return json(res, 200, { user: 'token holder' });
      }
      default:
        return json(res, 404, { error: 'not found' });
    }
  });
  return {
    server,
    origin: server.origin,
    hitsOf: (path) => server.hits.filter((hit) => hit.url.split('?')[0] === path),
    close: () => server.close(),
  };
}

function redirectTarget(url: URL): string {
  const target = new URL(url.searchParams.get('to') ?? '/x', url);
  for (const [name, value] of url.searchParams) if (name !== 'to') target.searchParams.set(name, value);
  return target.href;
}
