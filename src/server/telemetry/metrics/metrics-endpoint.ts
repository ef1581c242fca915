import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { BatonError } from '../../../domain/errors/baton-error.ts';
import type { ListenAddress } from '../telemetry-settings.ts';

export const METRICS_PATH = '/metrics';

/**
 * Whether an `Authorization` header carries the metrics token, compared in constant time (both
 * sides hashed first, so their lengths do not show either).
 */
export function carriesToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}

function refused(): BatonError {
  return new BatonError(
    'invalid_metrics_token',
    'GET /metrics needs `Authorization: Bearer <metrics token>` (metrics.token or BATON_METRICS_TOKEN); API keys are not accepted here.',
  );
}

/**
 * `/metrics` on the API's port, to the metrics token only: it checks its caller itself, before
 * anything else reads the request (see `OWN_ACCESS_ROUTES` in route-access.ts), so an API key,
 * which belongs to one app, never reads figures that cover them all.
 */
export function registerMetricsRoute(app: FastifyInstance, registry: Registry, token: string): void {
  app.get(METRICS_PATH, {
    onRequest: async (request, reply) => {
      if (carriesToken(request.headers.authorization, token)) return;
      void reply.header('www-authenticate', 'Bearer');
      throw refused();
    },
    handler: async (_request, reply) => {
      const text = await registry.metrics();
      return reply.header('content-type', registry.contentType).send(text);
    },
  });
}

/**
 * `/metrics` on an address of its own (`metrics.listen`), away from the API's port: a bare
 * `node:http` server that answers GET /metrics and nothing else, with the token required when
 * one is set.
 */
export async function listenForScrapes(
  address: ListenAddress,
  registry: Registry,
  token: string | null,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const answer = (status: number, body: string, type = 'application/json') => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      answer(404, JSON.stringify({ error: { code: 'route_not_found', message: 'Only GET /metrics is served here.' } }));
      return;
    }
    if (token !== null && !carriesToken(request.headers.authorization, token)) {
      const error = refused();
      response.setHeader('www-authenticate', 'Bearer');
      answer(401, JSON.stringify({ error: { code: error.code, message: error.message } }));
      return;
    }
    registry.metrics().then(
      (text) => answer(200, request.method === 'HEAD' ? '' : text, registry.contentType),
      (error: unknown) => answer(500, JSON.stringify({ error: { code: 'internal_error', message: String(error) } })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : address.port;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
