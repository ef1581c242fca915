import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Engine } from '../engine/index.ts';
import type { EngineLogger } from '../engine/index.ts';
import {
  AgentService,
  bootstrapAdminKey,
  ensureDefaultApp,
  Resources,
  serverKeys,
  type ServerTools,
  type ToolKindRegistry,
  WebhookDelivery,
  type WebhookSettings,
} from '../resources/index.ts';
import { newId } from '../domain/ids.ts';
import { systemClock, type Clock } from '../domain/clock.ts';
import { agentFromWire } from '../resources/agents/agent-config-form.ts';
import { createModelRegistry, type ModelRegistryOptions } from '../models/model-registry.ts';
import { parseScriptedProgram } from '../models/scripted/scripted-program.ts';
import { openStore, type StoreOptions } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import type { ResponseWebSocketSettings } from '../faces/responses/response-websocket.ts';
import { buildServer } from './build-server.ts';
import { type SweepChore } from '../faces/kit/face-context.ts';
import type { BatonConfig } from './config.ts';
import { DeadlineSweeper } from './deadline-sweeper.ts';
import { DEFAULT_IDEMPOTENCY_KEY_TTL_HOURS, IdempotencyExpiry } from './idempotency-expiry.ts';
import { knownLogSecrets } from './log-secrets.ts';
import { bindRequestLogIds, contextualLogger } from './request-log-context.ts';
import { DrainState, pause, settled, within } from './drain.ts';
import { loadSecretsKey, secretsKeyPath } from '../tools/secrets/secrets-key.ts';
import { startTelemetry } from './telemetry/start-telemetry.ts';
import { NO_TELEMETRY_SETTINGS } from './telemetry/telemetry-settings.ts';

export interface BatonInstance {
  app: FastifyInstance;
  engine: Engine;
  store: Store;
  defaultAppId: string;
  /** The generated first admin key, when this start created it (shown once). */
  generatedAdminKey: string | null;
  /** Where this start wrote a new secrets key (to back up), if it did. */
  generatedSecretsKeyFile: string | null;
  /** The webhook delivery worker (started by `listen`). */
  webhooks: WebhookDelivery;
  /** The address the server listens on, once `listen` was called. */
  url: string | null;
  /** Where Prometheus scrapes when `/metrics` has an address of its own (`metrics.listen`), once listening. */
  metricsUrl: string | null;
  listen(): Promise<string>;
  /**
   * Graceful shutdown (SIGTERM): readiness fails, the listener closes after the configured delay,
   * and requests and turns in flight get the drain timeout to finish before everything closes
   * (see `DrainState`). Resolves with what was still running when the timeout cut it.
   */
  drain(): Promise<{ cutRequests: boolean; cutTurns: boolean }>;
  close(): Promise<void>;
}

export interface StartOptions {
  store?: StoreOptions;
  clock?: Clock;
  models?: Partial<ModelRegistryOptions>;
  /** Fastify logger setting; false in tests. */
  logger?: boolean | object;
  /** Runs the deadline sweeper on a timer (tests call `engine.applyDueDeadlines()` instead). */
  sweeper?: boolean;
  /** Server-executed tools (tests inject fakes). */
  tools?: ServerTools;
  /** The tool kinds (tests add one to prove a kind is one module and one registry line). */
  toolKinds?: ToolKindRegistry;
  /** WebSocket mode of `/v1/responses` (tests shorten its connection limit). */
  responsesWebSocket?: ResponseWebSocketSettings;
  /** Webhook delivery settings over the config's (tests shorten the retry schedule). */
  webhooks?: Partial<WebhookSettings>;
}

/** Where the config says the data lives: PostgreSQL at `DATABASE_URL`, else SQLite in the data directory. */
export function storeOptionsFor(config: BatonConfig): StoreOptions {
  if (config.databaseUrl)
    return {
      kind: 'postgres',
      connectionString: config.databaseUrl,
      poolSize: config.postgres.poolSize,
      statementTimeoutMs: config.postgres.statementTimeoutMs,
      preparedStatements: config.postgres.preparedStatements,
    };
  return { kind: 'sqlite', filename: join(config.dataDir, 'baton.db') };
}

/**
 * Wires Baton together: database, model registry, engine, agents from the config file, the first
 * admin key, the HTTP server and the deadline sweeper.
 */
export async function createBaton(config: BatonConfig, options: StartOptions = {}): Promise<BatonInstance> {
  const storeOptions = options.store ?? storeOptionsFor(config);
  // Traces and metrics first: the store reports its statements to the metrics from its first one.
  let reportScrapeError = (_error: unknown): void => {};
  const telemetry = await startTelemetry(config.telemetry ?? NO_TELEMETRY_SETTINGS, {
    now: () => (options.clock ?? systemClock).now(),
    onScrapeError: (error) => reportScrapeError(error),
  });
  let store: Store;
  try {
    store = await openStore(storeOptions, telemetry.database);
  } catch (error) {
    await telemetry.close();
    throw error;
  }
  try {
    const scriptedPrograms = Object.fromEntries(
      Object.entries(config.scripted).map(([name, source]) => [name, parseScriptedProgram(source, name)]),
    );
    const registry = createModelRegistry({ providers: config.providers, scriptedPrograms, ...options.models });
    const clock = options.clock ?? systemClock;
    // The engine logs through Fastify's logger, which exists only once the server is built.
    let log: EngineLogger = { warn: () => {}, error: () => {} };
    // SQLite has one process, so a key file beside the database works; Postgres deployments must
    // share one key through BATON_SECRETS_KEY. An in-memory database gets an ephemeral key.
    const onDisk = storeOptions.kind === 'sqlite' && storeOptions.filename !== ':memory:';
    const secretsKey = loadSecretsKey({
      env: process.env,
      dataDir: onDisk ? config.dataDir : null,
      allowKeyFile: storeOptions.kind === 'sqlite',
    });
    const keys = serverKeys(secretsKey.key);
    const agents = new AgentService(store, clock, newId, (modelId) => registry.validate(modelId));
    const resources = new Resources({
      store,
      keys,
      agents,
      egress: { allow: config.egressAllow },
      logger: { warn: (details, message) => log.warn(details, message) },
      serverTools: options.tools,
      kinds: options.toolKinds,
      tools: config.tools,
    });
    const engine = new Engine({
      store,
      models: registry,
      tools: resources.toolCatalog,
      telemetry: telemetry.engine,
      clock,
      logger: {
        warn: (details, message) => log.warn(details, message),
        error: (details, message) => log.error(details, message),
        // The turn a request started or resumed: its request's lines carry the turn's ids.
        tag: (ids) => bindRequestLogIds(ids),
      },
      settings: {
        maxModelRetries: config.maxModelRetries,
        staleTurnSeconds: config.staleTurnSeconds,
        maxTurnTakeovers: config.maxTurnTakeovers,
        deferredOpeningMs: config.deferredWriteMs,
        responsesToolTimeoutSeconds: config.responsesToolTimeoutSeconds,
        turnsPerApp: config.limits.turnsPerApp,
        turnsTotal: config.limits.turnsTotal,
      },
    });
    const defaultAppId = await ensureDefaultApp(store);
    for (const agent of config.agents) await agents.upsert(defaultAppId, agentFromWire(agent));
    const { generated } = await bootstrapAdminKey(store, defaultAppId, config.adminKey);
    const sweepChores: SweepChore[] = [];
    const drain = new DrainState();
    const app = await buildServer({
      store,
      engine,
      resources,
      bodyLimitBytes: config.bodyLimitBytes,
      logger: options.logger ?? false,
      logSecrets: knownLogSecrets(config),
      responsesWebSocket: options.responsesWebSocket,
      sweepChores,
      idempotencyLeaseSeconds: config.idempotencyLeaseSeconds,
      mcpAllowedOrigins: config.mcpAllowedOrigins,
      limits: config.limits,
      drain,
      telemetry,
    });
    telemetry.watch({ store, runningTurns: () => engine.runningTurns() });
    reportScrapeError = (error) => app.log.error({ err: error }, 'a metrics scrape could not read the ledger');
    // Work done for a request logs with the request's ids (request-log-context.ts).
    log = contextualLogger(() => app.log);
    const webhooks = new WebhookDelivery({
      store,
      keys,
      egress: { allow: config.egressAllow },
      settings: { ...config.webhooks, ...options.webhooks },
      logger: { warn: (details, message) => log.warn(details, message) },
    });
    const idempotencyExpiry = new IdempotencyExpiry(
      store,
      clock,
      { ttlHours: config.idempotencyKeyTtlHours ?? DEFAULT_IDEMPOTENCY_KEY_TTL_HOURS },
      (error) => log.error({ err: error }, 'idempotency key expiry failed'),
    );
    sweepChores.push(async () => idempotencyExpiry.startWhenDue());
    const sweeper = new DeadlineSweeper(engine, config.sweepIntervalMs, log, sweepChores, () =>
      store.signals.lead('sweeper'),
    );
    // Turns orphaned by a previous process are closed before anyone talks to their threads. On
    // the embedded SQLite default one process owns the file, so every running turn is an orphan
    // at start; with Postgres other processes may be mid-turn, so only stale ones are.
    if (config.databaseUrl === null) {
      while ((await engine.recoverStaleTurns(100, 0)) === 100);
    } else {
      await engine.recoverStaleTurns();
    }

    const instance: BatonInstance = {
      app,
      engine,
      store,
      defaultAppId,
      webhooks,
      generatedAdminKey: generated,
      generatedSecretsKeyFile: secretsKey.source === 'generated' && onDisk ? secretsKeyPath(config.dataDir) : null,
      url: null,
      metricsUrl: null,
      async listen() {
        const url = await app.listen({ host: config.host, port: config.port });
        instance.url = url;
        instance.metricsUrl = await telemetry.listen();
        if (options.sweeper !== false) sweeper.start();
        webhooks.start();
        return url;
      },
      async drain() {
        drain.start();
        // Workers waiting on a claim get their (empty) answer now and claim again elsewhere.
        engine.workers.stopWaiting();
        // No new expiries, takeovers or recoveries from a process on its way out.
        sweeper.stop();
        const expiryStopped = idempotencyExpiry.stop();
        // Sends in flight finish (each bounded by its timeout); the rest waits in the outbox.
        const webhooksStopped = webhooks.stop();
        await pause(config.drain.delaySeconds * 1000);
        const deadline = Date.now() + config.drain.timeoutSeconds * 1000;
        // Closing stops the listener, closes idle connections and the long-lived streams, and
        // waits for the requests in flight (turns run for their callers inside them).
        const closing = app.close();
        const requestsDone = await within(closing, deadline - Date.now());
        if (!requestsDone) {
          app.log.warn(
            { drainTimeoutSeconds: config.drain.timeoutSeconds },
            'drain timeout: cutting requests still running',
          );
          app.server.closeAllConnections();
          await closing.catch(() => undefined);
        }
        // Background work (resumes, queued input) and turns whose request was cut still run here.
        await within(settled(engine, deadline), deadline - Date.now());
        await within(webhooksStopped, Math.max(0, deadline - Date.now()));
        const turnsDone = engine.runningTurns() === 0;
        if (!turnsDone)
          app.log.warn({}, 'drain timeout: turns still running stay in_progress for another replica to take over');
        await expiryStopped;
        await resources.close();
        await store.close();
        // The spans of the runs that just ended are still to be exported.
        await telemetry.close();
        return { cutRequests: !requestsDone, cutTurns: !turnsDone };
      },
      async close() {
        sweeper.stop();
        await idempotencyExpiry.stop();
        await webhooks.stop(true);
        engine.workers.stopWaiting();
        await app.close();
        await engine.idle();
        await resources.close();
        await store.close();
        await telemetry.close();
      },
    };
    return instance;
  } catch (error) {
    await store.close();
    await telemetry.close();
    throw error;
  }
}
