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
import { loadSecretsKey, secretsKeyPath } from '../tools/secrets/secrets-key.ts';

export interface BatonInstance {
  app: FastifyInstance;
  engine: Engine;
  store: Store;
  defaultAppId: string;
  /** The generated first admin key, when this start created it (shown once). */
  generatedAdminKey: string | null;
  /** Where this start wrote a new secrets key (to back up), if it did. */
  generatedSecretsKeyFile: string | null;
  /** The address the server listens on, once `listen` was called. */
  url: string | null;
  listen(): Promise<string>;
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
  const store = await openStore(storeOptions);
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
      clock,
      logger: {
        warn: (details, message) => log.warn(details, message),
        error: (details, message) => log.error(details, message),
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
    const app = await buildServer({
      store,
      engine,
      resources,
      bodyLimitBytes: config.bodyLimitBytes,
      logger: options.logger ?? false,
      responsesWebSocket: options.responsesWebSocket,
      sweepChores,
      idempotencyLeaseSeconds: config.idempotencyLeaseSeconds,
      mcpAllowedOrigins: config.mcpAllowedOrigins,
      limits: config.limits,
    });
    log = {
      warn: (details, message) => app.log.warn(details, message),
      error: (details, message) => app.log.error(details, message),
    };
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
      generatedAdminKey: generated,
      generatedSecretsKeyFile: secretsKey.source === 'generated' && onDisk ? secretsKeyPath(config.dataDir) : null,
      url: null,
      async listen() {
        const url = await app.listen({ host: config.host, port: config.port });
        instance.url = url;
        if (options.sweeper !== false) sweeper.start();
        return url;
      },
      async close() {
        sweeper.stop();
        await app.close();
        await engine.idle();
        await resources.close();
        await store.close();
      },
    };
    return instance;
  } catch (error) {
    await store.close();
    throw error;
  }
}
