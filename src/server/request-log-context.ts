import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Log lines that serve an incident. Every line about a request carries its `request_id` (the
 * caller's `x-request-id` when it sends a usable one, echoed back either way) and, as soon as they
 * are known, the ids an operator searches by: `app_id` once the key is checked, the thread, call,
 * response or session the URL names, and the `turn_id` and `conversation_id` the engine works on.
 * What the engine logs while it works for a request (a failed model call, a tool that threw)
 * carries the same ids, through an async context, without the engine knowing about requests.
 */

/** The ids a line may carry, named as the wire formats name them. */
export type LogIds = Partial<
  Record<'app_id' | 'thread_id' | 'conversation_id' | 'turn_id' | 'call_id' | 'response_id' | 'session_id', string>
>;

/** pino's child logger, as Fastify's logger type hides it; absent when logging is off. */
interface BindableLogger {
  setBindings?(bindings: Record<string, unknown>): void;
}

/** The request a piece of work runs for: its logger, its id, and the ids its lines already carry. */
interface RequestLogScope {
  log: FastifyBaseLogger;
  requestId: string;
  bound: Map<string, string>;
}

const scopes = new AsyncLocalStorage<RequestLogScope>();

/** A caller's request id is taken as it is when it is an id, not a paragraph or a control character. */
const USABLE_REQUEST_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `x-request-id` when usable (a proxy or a client correlating
 * its own logs), else a UUID, unique across processes and restarts as a counter is not.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && USABLE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** Which id a route's `:id` (or other) parameter is, by route pattern. */
const ROUTE_IDS: ReadonlyArray<{ pattern: RegExp; param: string; id: keyof LogIds }> = [
  { pattern: /^\/v1\/threads\/:id/, param: 'id', id: 'thread_id' },
  { pattern: /^\/v1\/tool-calls\/:id/, param: 'id', id: 'call_id' },
  { pattern: /^(\/nodexa)?\/v1\/responses\/:id/, param: 'id', id: 'response_id' },
  { pattern: /\/sessions\/:sessionAction$/, param: 'sessionAction', id: 'session_id' },
  { pattern: /\/conversations\/:conversation$/, param: 'conversation', id: 'conversation_id' },
];

function routeIds(request: FastifyRequest): LogIds {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return {};
  const params = (request.params ?? {}) as Record<string, unknown>;
  const ids: LogIds = {};
  for (const route of ROUTE_IDS) {
    const value = params[route.param];
    if (!route.pattern.test(pattern) || typeof value !== 'string' || value === '') continue;
    // `sessions/{id}:runSession`: the id is before the method.
    ids[route.id] = route.id === 'session_id' ? (value.split(':')[0] ?? value) : value;
  }
  return ids;
}

/** Adds ids to the lines of the request `scope` is for; an id already bound keeps its first value. */
function bind(scope: RequestLogScope, ids: LogIds): void {
  const fresh: Record<string, string> = {};
  for (const [key, value] of Object.entries(ids)) {
    if (value === undefined || scope.bound.has(key)) continue;
    fresh[key] = value;
    scope.bound.set(key, value);
  }
  if (Object.keys(fresh).length > 0) (scope.log as BindableLogger).setBindings?.(fresh);
}

/**
 * Echoes the request id, binds the URL's ids, and runs the rest of the request in its log scope.
 * Register it before authentication, so that even a refused request's lines have their scope.
 *
 * The scope is an async context, which on Node 20 costs every promise the request creates (about
 * 0.3 ms of CPU per round trip, measured with the bench's round trip): with logging off
 * (`logging: false`) nothing reads it, so only the id is echoed.
 */
export function registerRequestLogContext(app: FastifyInstance, logging: boolean): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    if (!logging) return done();
    const scope: RequestLogScope = { log: request.log, requestId: request.id, bound: new Map() };
    bind(scope, routeIds(request));
    scopes.run(scope, done);
  });
}

/** Adds ids to the lines of the request this code runs for (`app_id` once the key is checked…); none outside one. */
export function bindRequestLogIds(ids: LogIds): void {
  const scope = scopes.getStore();
  if (scope) bind(scope, ids);
}

/** What the engine and the resources log through (`EngineLogger`'s shape). */
export interface ContextualLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * The logger for work that may run for a request: the request's, so its lines carry the request's
 * ids, else `fallback` (the server's). An id the details give is written once; when it differs
 * from the request's (work the request set off for another turn), the line goes to `fallback`
 * with the request's id and the work's own ids, so no line says two things of one field.
 */
export function contextualLogger(fallback: () => FastifyBaseLogger): ContextualLogger {
  const write = (level: 'warn' | 'error', details: object, message: string): void => {
    const scope = scopes.getStore();
    if (!scope) return fallback()[level](details, message);
    const entries = Object.entries(details);
    const conflicts = entries.some(([key, value]) => scope.bound.has(key) && scope.bound.get(key) !== value);
    if (conflicts) return fallback()[level]({ request_id: scope.requestId, ...details }, message);
    scope.log[level](Object.fromEntries(entries.filter(([key]) => !scope.bound.has(key))), message);
  };
  return {
    warn: (details, message) => write('warn', details, message),
    error: (details, message) => write('error', details, message),
  };
}
