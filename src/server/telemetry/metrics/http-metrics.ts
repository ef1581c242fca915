import type { FastifyInstance } from 'fastify';
import type { AccumulatedSeries } from './accumulated-histogram.ts';
import type { BatonMetrics } from './baton-metrics.ts';

/** The route label of a request no route matched: its path is never a label. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every request by route pattern (`/v1/threads/:id/messages`, never the path with its ids),
 * method and status code, when its response is sent. Fastify's own `elapsedTime` is the duration,
 * so nothing is stored per request.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: BatonMetrics): void {
  // Each series is looked up once; a callback hook, not an async one: no promise per request.
  const series = new Map<string, AccumulatedSeries>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let observed = series.get(key);
    if (!observed) {
      observed = metrics.httpDuration.series({ method: request.method, route, status_code: reply.statusCode });
      series.set(key, observed);
    }
    observed.observe(reply.elapsedTime / 1000);
    done();
  });
}
