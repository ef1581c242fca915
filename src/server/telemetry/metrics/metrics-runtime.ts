import type { FastifyInstance } from 'fastify';
import type { EngineTelemetry } from '../../../engine/index.ts';
import type { DatabaseObserver } from '../../../store/database-observer.ts';
import type { MetricsSettings } from '../telemetry-settings.ts';
import { BatonMetrics } from './baton-metrics.ts';
import { DatabaseMetrics } from './database-metrics.ts';
import { registerHttpMetrics } from './http-metrics.ts';
import { MetricsEngineTelemetry } from './metrics-engine-telemetry.ts';
import { listenForScrapes, registerMetricsRoute } from './metrics-endpoint.ts';
import { PendingCallsMetrics, type PendingCallsSource } from './pending-calls-metrics.ts';

/** What the scrape reads besides what was counted: the ledger, and the turns running here. */
export interface MetricsSources {
  pendingCalls: PendingCallsSource;
  runningTurns(): number;
}

/**
 * Prometheus metrics, loaded (with prom-client) only when `metrics:` is configured: the engine's
 * hooks, the store's observer, the HTTP hooks and `/metrics` itself, on the API's port or an
 * address of its own.
 */
export class MetricsRuntime {
  readonly metrics = new BatonMetrics();
  readonly engine: EngineTelemetry = new MetricsEngineTelemetry(this.metrics);
  readonly database: DatabaseObserver = new DatabaseMetrics(this.metrics);
  private readonly pendingCalls: PendingCallsMetrics;
  private listener: { url: string; close(): Promise<void> } | null = null;

  constructor(
    private readonly settings: MetricsSettings,
    now: () => Date,
    onScrapeError: (error: unknown) => void,
  ) {
    this.pendingCalls = new PendingCallsMetrics(this.metrics, now, onScrapeError);
  }

  /** Request timing on the API's server, and `/metrics` there unless it has an address of its own. */
  registerHttp(app: FastifyInstance): void {
    registerHttpMetrics(app, this.metrics);
    if (this.settings.listen === null && this.settings.token !== null)
      registerMetricsRoute(app, this.metrics.registry, this.settings.token);
  }

  watch(sources: MetricsSources): void {
    this.pendingCalls.watch(sources.pendingCalls);
    this.metrics.runningTurns = () => sources.runningTurns();
  }

  /** Starts the listener of `metrics.listen`, if set; the URL Prometheus scrapes there. */
  async listen(): Promise<string | null> {
    if (this.settings.listen === null) return null;
    this.listener ??= await listenForScrapes(this.settings.listen, this.metrics.registry, this.settings.token);
    return this.listener.url;
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.listener = null;
  }
}
