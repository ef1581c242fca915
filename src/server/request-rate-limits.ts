import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BatonError } from '../domain/errors/baton-error.ts';

export interface RequestRateLimits {
  perAppPerMinute: number;
  totalPerMinute: number;
}

const WINDOW_MS = 60_000;
/** Apps (and the one total key) whose windows are kept; an app beyond it starts a fresh window. */
const REMEMBERED_KEYS = 10_000;

function secondsLeft(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

/** Only authenticated requests count: `/healthz` and the console carry no principal. */
const unauthenticated = (request: FastifyRequest): boolean => !request.principal;

/**
 * Request rates with @fastify/rate-limit, in one-minute windows: per app (keyed by the app id
 * authentication found, so it must run after the auth hook) and, for the requests an app's own
 * limit let through, in all. Every counted response carries `x-ratelimit-limit`, `-remaining`
 * and `-reset` for its app; a refusal is a `rate_limited` BatonError with `Retry-After`, which
 * the server's error handler renders in the format of the face the request was for.
 */
export async function registerRequestRateLimits(app: FastifyInstance, limits: RequestRateLimits): Promise<void> {
  await app.register(rateLimit, {
    // Not per route: the two hooks below apply to every route, after authentication.
    global: false,
    hook: 'onRequest',
    timeWindow: WINDOW_MS,
    cache: REMEMBERED_KEYS,
    errorResponseBuilder: (_request, context) => {
      const seconds = secondsLeft(context.ttl);
      return new BatonError(
        'rate_limited',
        `This app made more than ${context.max} requests this minute (limits.requests_per_minute_per_app); ` +
          `retry in ${seconds} seconds.`,
        { retryAfterSeconds: seconds },
      );
    },
  });

  const perApp = app.rateLimit({
    max: limits.perAppPerMinute,
    // Keys are made before the allow list is asked, so a request without a principal needs one too.
    keyGenerator: (request) => (unauthenticated(request) ? 'public' : `app:${request.principal.appId}`),
    allowList: unauthenticated,
  });
  const total = app.createRateLimit({
    max: limits.totalPerMinute,
    timeWindow: WINDOW_MS,
    keyGenerator: () => 'total',
    allowList: unauthenticated,
  });

  // An app over its own limit is refused before it is counted in the total, so it cannot use
  // up the other apps' share by being refused.
  app.addHook('onRequest', perApp);
  app.addHook('onRequest', async (request, reply) => {
    const counted = await total(request);
    if (counted.isAllowed || !counted.isExceeded) return;
    const seconds = secondsLeft(counted.ttl);
    void reply.headers({
      'x-ratelimit-limit': counted.max,
      'x-ratelimit-remaining': 0,
      'x-ratelimit-reset': seconds,
    });
    throw new BatonError(
      'rate_limited',
      `This server received more than ${counted.max} requests this minute from all apps ` +
        `(limits.requests_per_minute_total); retry in ${seconds} seconds.`,
      { retryAfterSeconds: seconds },
    );
  });
}
