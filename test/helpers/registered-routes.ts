import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  url: string;
}

/**
 * Records every route of every Fastify instance created while it listens, through Fastify's
 * `fastify.initialization` diagnostics channel (an `onRoute` hook added before any route), so a
 * test sees what the server registered without asking the code under test.
 */
export function recordRegisteredRoutes(): { routes: RegisteredRoute[]; stop(): void } {
  const routes: RegisteredRoute[] = [];
  const onInstance = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.push({ method, url: route.url });
    });
  };
  subscribe('fastify.initialization', onInstance);
  return { routes, stop: () => unsubscribe('fastify.initialization', onInstance) };
}
