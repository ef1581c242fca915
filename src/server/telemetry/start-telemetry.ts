import type { FastifyInstance } from 'fastify';
import { NO_TELEMETRY, type EngineTelemetry } from '../../engine/index.ts';
import type { DatabaseObserver } from '../../store/database-observer.ts';
import type { Store } from '../../store/store.ts';
import { combineEngineTelemetry } from './combined-engine-telemetry.ts';
import type { MetricsRuntime } from './metrics/metrics-runtime.ts';
import type { TelemetrySettings } from './telemetry-settings.ts';
import type { TracingRuntime } from './tracing/tracing-runtime.ts';

/**
 * Baton's traces and metrics, as the server wires them: hooks for the engine, an observer for the
 * store, HTTP hooks and `/metrics` for the server. With neither configured, every part is a no-op
 * and neither OpenTelemetry nor prom-client is ever imported.
 */
export interface Telemetry {
  /** The engine's hooks: `NO_TELEMETRY` when both are off. */
  readonly engine: EngineTelemetry;
  /** The store's statement and connection timing; undefined (no wrapper at all) without metrics. */
  readonly database: DatabaseObserver | undefined;
  /** Request timing, and `/metrics` on the API's port when it is served there. */
  registerHttp(app: FastifyInstance): void;
  /** What the metrics read at scrape time, once it exists: the ledger, the turns running here. */
  watch(sources: { store: Store; runningTurns(): number }): void;
  /** Starts `/metrics` on its own address (`metrics.listen`), if set; that URL, or null. */
  listen(): Promise<string | null>;
  /** Stops the metrics listener and flushes the spans not yet exported. */
  close(): Promise<void>;
}

export interface TelemetryOptions {
  /** The time the pending calls' ages are counted from (the engine's clock). */
  now(): Date;
  /** A scrape whose ledger read failed. */
  onScrapeError(error: unknown): void;
}

export const NO_SERVER_TELEMETRY: Telemetry = {
  engine: NO_TELEMETRY,
  database: undefined,
  registerHttp: () => {},
  watch: () => {},
  listen: async () => null,
  close: async () => {},
};

/** Loads what `settings` turns on (each with a dynamic import), and nothing else. */
export async function startTelemetry(settings: TelemetrySettings, options: TelemetryOptions): Promise<Telemetry> {
  if (settings.metrics === null && settings.tracing === null) return NO_SERVER_TELEMETRY;
  let metrics: MetricsRuntime | null = null;
  let tracing: TracingRuntime | null = null;
  if (settings.metrics !== null) {
    const { MetricsRuntime } = await import('./metrics/metrics-runtime.ts');
    metrics = new MetricsRuntime(settings.metrics, options.now, options.onScrapeError);
  }
  if (settings.tracing !== null) {
    const { startTracing } = await import('./tracing/tracing-runtime.ts');
    tracing = startTracing(settings.tracing);
  }
  const engine =
    metrics && tracing
      ? combineEngineTelemetry(metrics.engine, tracing.engine)
      : (metrics?.engine ?? tracing?.engine ?? NO_TELEMETRY);
  return {
    engine,
    database: metrics?.database,
    registerHttp: (app) => metrics?.registerHttp(app),
    watch: ({ store, runningTurns }) =>
      metrics?.watch({
        pendingCalls: (now, bounds) => store.ledger.summarisePending(now, bounds),
        runningTurns,
      }),
    listen: async () => (metrics ? metrics.listen() : null),
    async close() {
      await metrics?.close();
      await tracing?.close();
    },
  };
}
