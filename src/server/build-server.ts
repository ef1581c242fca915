import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Engine } from '../engine/index.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { registerAdminRoutes } from '../faces/admin/admin-routes.ts';
import { registerWebhookRoutes } from '../faces/webhooks/webhook-routes.ts';
import { registerLifecycleRoutes } from '../faces/lifecycle/lifecycle-routes.ts';
import { registerAgentRoutes } from '../faces/agents/agent-routes.ts';
import { registerLedgerRoutes } from '../faces/ledger/ledger-routes.ts';
import { registerCesFace } from '../faces/ces/ces-face.ts';
import { googleErrorBody } from '../faces/ces/ces-errors.ts';
import { cesManagementTools } from '../faces/mcp/ces-management-tools.ts';
import { registerMcpEndpoint } from '../faces/mcp/mcp-endpoint.ts';
import { registerThreadRoutes } from '../faces/threads/thread-routes.ts';
import { registerResponseRoutes } from '../faces/responses/response-routes.ts';
import { registerChatRoutes } from '../faces/chat/chat-routes.ts';
import { registerResponseWebSocket, type ResponseWebSocketSettings } from '../faces/responses/response-websocket.ts';
import type { Store } from '../store/store.ts';
import { isConsoleRoute, registerConsoleRoutes } from './console-routes.ts';
import { API_DOCS_PUBLIC_ROUTES, registerApiDocs } from './openapi/api-docs-routes.ts';
import { apiOperations } from './openapi/api-operations.ts';
import { DrainState, registerReadiness, tellStreamsToReconnect } from './drain.ts';
import { authenticate } from './authenticate.ts';
import { DEFAULT_IDEMPOTENCY_LEASE_SECONDS, IdempotencyKeys, RETRYABLE_CONFLICTS } from './idempotency.ts';
import { withRequestLogRedaction } from './request-log-redaction.ts';
import { bindRequestLogIds, registerRequestLogContext, requestIdOf } from './request-log-context.ts';
import { MAX_PATH_SEGMENT_LENGTH, toBatonError } from '../faces/kit/http-errors.ts';
import { clientErrorHandler, frameworkErrorHandler } from './client-errors.ts';
import { ErrorFormats } from './error-formats.ts';
import { checkRequestSize, PARSER_MAX_HEADER_BYTES } from './request-limits.ts';
import type { Principal } from '../domain/principal.ts';
import type { FaceContext, SweepChore } from '../faces/kit/face-context.ts';
import type { Resources } from '../resources/index.ts';
import { requireCapability } from '../domain/access.ts';
import { OWN_ACCESS_ROUTES, routeCapability, WORKER_KEY_ROUTES } from './route-access.ts';
import { outOfWorkerScope } from '../domain/worker-scope.ts';
import { StreamSlots } from '../faces/kit/stream-slots.ts';
import { AuthFailureLimiter } from './auth-failure-limiter.ts';
import { DEFAULT_LIMITS, type LimitSettings } from './limit-settings.ts';
import { registerRequestRateLimits } from './request-rate-limits.ts';
import type { Telemetry } from './telemetry/start-telemetry.ts';

export interface ServerDependencies {
  store: Store;
  engine: Engine;
  resources: Resources;
  bodyLimitBytes: number;
  logger?: FastifyServerOptions['logger'];
  /** WebSocket mode of `/v1/responses` (its connection limit). */
  responsesWebSocket?: ResponseWebSocketSettings;
  /** Faces add their periodic clean-up here; the sweeper runs each on every pass. */
  sweepChores?: SweepChore[];
  /** How long an in-flight Idempotency-Key stays held after its process died (`server.idempotency_lease_seconds`). */
  idempotencyLeaseSeconds?: number;
  /** Web origins besides loopback ones whose pages may call `/mcp` (`mcp.allowed_origins`). */
  mcpAllowedOrigins?: readonly string[];
  /** Request rates, open streams and failed authentications (turns are the engine's); defaults when absent. */
  limits?: LimitSettings;
  /** Values the log replaces wherever they appear (provider keys, the admin key…): see `knownLogSecrets`. */
  logSecrets?: readonly string[];
  /** Whether the process is draining (readiness fails, connections close after their response). */
  drain?: DrainState;
  /** Request timing and `/metrics` (when metrics are on); nothing when absent. */
  telemetry?: Pick<Telemetry, 'registerHttp'>;
}

const PUBLIC_PATHS = new Set(['/healthz', '/readyz', ...API_DOCS_PUBLIC_ROUTES]);

/** Assembles the HTTP server: auth, body limits, idempotency, error mapping, then each face. */
export async function buildServer(dependencies: ServerDependencies): Promise<FastifyInstance> {
  // Which face's error format a path gets: for route errors, Fastify's own and Node's parser's alike.
  const formats = new ErrorFormats();
  const app = Fastify({
    logger: withRequestLogRedaction(dependencies.logger, { knownSecrets: dependencies.logSecrets }),
    bodyLimit: dependencies.bodyLimitBytes,
    http: { maxHeaderSize: PARSER_MAX_HEADER_BYTES },
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT_LENGTH },
    frameworkErrors: frameworkErrorHandler(formats, dependencies.bodyLimitBytes),
    clientErrorHandler: clientErrorHandler(formats),
    // Prototype-poisoning keys are refused, not silently kept.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // The caller's `x-request-id` when it is a usable id, else a UUID; every request's lines carry it.
    requestIdHeader: false,
    genReqId: requestIdOf,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    // A request on a kept-alive connection while the server drains is served (with `Connection:
    // close`, see `registerReadiness`) rather than refused with a 503: it was already on its way.
    return503OnClosing: false,
  });
  const { store, resources } = dependencies;
  // Every endpoint takes JSON; anything else is a 415 rather than a string the schema then rejects.
  app.removeContentTypeParser('text/plain');

  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('idempotency', undefined);

  // Fail closed: an API route without an access rule stops the server from starting.
  app.addHook('onRoute', (route) => {
    if (PUBLIC_PATHS.has(route.url) || OWN_ACCESS_ROUTES.has(route.url) || isConsoleRoute(route.url)) return;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && method !== 'OPTIONS' && routeCapability(method, route.url) === undefined)
        throw new Error(`Route ${method} ${route.url} has no access rule in src/server/route-access.ts.`);
    }
  });

  // First, so that every line of a request, refused or not, carries its ids.
  registerRequestLogContext(app, dependencies.logger !== undefined && dependencies.logger !== false);
  app.addHook('onRequest', checkRequestSize);
  const keys = resources.apiKeys;
  const limits = dependencies.limits ?? DEFAULT_LIMITS;
  // Failed attempts are counted per address after the key was checked, so a valid key always passes.
  const failedAuth = new AuthFailureLimiter({ maxFailures: limits.failedAuthPerMinutePerAddress, windowMs: 60_000 });
  app.addHook('onRequest', async (request) => {
    // Matched by route pattern, not raw URL, so no crafted path can reach an API route without a key.
    if (PUBLIC_PATHS.has(request.url) || isConsoleRoute(request.routeOptions.url)) return;
    // `/metrics` checks its own token (see OWN_ACCESS_ROUTES), matched by pattern too.
    if (request.routeOptions.url !== undefined && OWN_ACCESS_ROUTES.has(request.routeOptions.url)) return;
    await request.routeOptions.config.beforeAuthentication?.(request);
    request.principal = await failedAuth.guard(request.ip, () => authenticate(keys, request));
    bindRequestLogIds({ app_id: request.principal.appId });
    const pattern = request.routeOptions.url;
    if (pattern === undefined) return; // no such route: the not-found handler answers
    if (request.principal.toolScope && !WORKER_KEY_ROUTES.has(pattern)) throw outOfWorkerScope(request.principal);
    const capability = routeCapability(request.method, pattern) ?? 'operate';
    requireCapability(request.principal, capability, `${request.method} ${request.url.split('?')[0]}`);
  });
  // After authentication: the rate is counted per app.
  await registerRequestRateLimits(app, {
    perAppPerMinute: limits.requestsPerMinutePerApp,
    totalPerMinute: limits.requestsPerMinuteTotal,
  });

  const idempotency = new IdempotencyKeys(store, {
    leaseMs: (dependencies.idempotencyLeaseSeconds ?? DEFAULT_IDEMPOTENCY_LEASE_SECONDS) * 1000,
  });
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.principal) return;
    const handle = await idempotency.begin(request.principal.appId, request, reply);
    if (handle === null) return reply; // replayed: the stored response was sent
    request.idempotency = handle;
    return undefined;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const handle = request.idempotency;
    if (!handle) return payload;
    request.idempotency = undefined;
    // An internal fault (500), a limit (429) or unavailability (503) changed nothing a retry should
    // not redo, so the key is freed. A 502 model failure is stored: the input was saved, a retry must not add it twice.
    if (typeof payload === 'string' && ![429, 500, 503].includes(reply.statusCode))
      await handle.complete(reply.statusCode, payload);
    else await handle.release();
    return payload;
  });

  app.setErrorHandler(async (error, request, reply) => {
    const engineError = toBatonError(error, dependencies.bodyLimitBytes);
    if (engineError.kind === 'internal') request.log.error({ err: error }, 'unhandled error');
    if (request.idempotency && RETRYABLE_CONFLICTS.has(engineError.code)) {
      // Refused for a state that passes (a turn still running): a retry with the key must run.
      const handle = request.idempotency;
      request.idempotency = undefined;
      await handle.release();
    }
    const { status, body } = formats.render(request.url, engineError);
    if (engineError.retryAfterSeconds !== null) void reply.header('retry-after', engineError.retryAfterSeconds);
    return reply.status(status).send(body);
  });

  app.setNotFoundHandler(async (request, reply) => {
    const error = new BatonError(
      'route_not_found',
      `No route ${request.method} ${request.url.split('?')[0]}. See the README for Baton's endpoints.`,
    );
    const { status, body } = formats.render(request.url, error);
    return reply.status(status).send(body);
  });

  // First of the routes: the API document notes every route registered after it.
  await registerApiDocs(app, {
    operations: () => apiOperations(resources),
    capabilityOf: routeCapability,
    isPublic: (route) => PUBLIC_PATHS.has(route),
  });
  app.get('/healthz', async () => ({ ok: true }));
  registerReadiness(app, store, dependencies.drain ?? new DrainState());
  dependencies.telemetry?.registerHttp(app);

  const face: FaceContext = {
    engine: dependencies.engine,
    resources,
    useErrorFormat: (prefix, render) => formats.use(prefix, render),
    streams: new StreamSlots({ perApp: limits.streamsPerApp, total: limits.streamsTotal }),
    addSweepChore: (chore) => dependencies.sweepChores?.push(chore),
  };
  // Before the faces' own hooks end their streams: every open SSE stream learns why it will end.
  app.addHook('preClose', async () => tellStreamsToReconnect(face.streams));
  registerConsoleRoutes(app);
  registerAdminRoutes(app, face);
  registerWebhookRoutes(app, face);
  registerLifecycleRoutes(app, face);
  registerAgentRoutes(app, face);
  registerThreadRoutes(app, face);
  registerLedgerRoutes(app, face);
  registerCesFace(app, face);
  // The management MCP server (stateless Streamable HTTP): CES's tools on the same services as REST.
  const managementTools = cesManagementTools(resources);
  registerMcpEndpoint(app, {
    tools: () => managementTools,
    serverInfo: { name: 'baton', version: '0.1.0' },
    // Tool errors carry the same google.rpc.Status body as the REST API.
    renderError: (error) => googleErrorBody(error).body,
    useErrorFormat: face.useErrorFormat,
    allowedOrigins: dependencies.mcpAllowedOrigins ?? [],
  });
  const responses = registerResponseRoutes(app, face);
  registerChatRoutes(app, face);
  registerResponseWebSocket(app, {
    ...dependencies.responsesWebSocket,
    service: responses,
    engine: dependencies.engine,
    authenticate: async (headers, address) => {
      const principal = await failedAuth.guard(address, () => authenticate(keys, { headers }));
      if (principal.toolScope) throw outOfWorkerScope(principal);
      // Every message on the socket creates a response: a member's action, as POST /v1/responses.
      requireCapability(principal, 'use', 'The Responses WebSocket');
      return principal;
    },
    streams: face.streams,
    maxPayloadBytes: dependencies.bodyLimitBytes,
  });
  return app;
}
