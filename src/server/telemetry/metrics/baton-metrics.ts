import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { AccumulatedHistogram } from './accumulated-histogram.ts';

/** Seconds, from a millisecond round trip to a slow model's minutes. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds, for statements and waits for a connection: most take well under a millisecond. */
const DATABASE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/**
 * Every metric Baton exports, in one registry of its own, with Node's process metrics (CPU,
 * memory, GC, event-loop lag as `nodejs_eventloop_lag_*`). Labels are bounded: kinds, outcomes,
 * route patterns, status codes, and agent and model names (bounded again by `BoundedLabel`);
 * never an id or a raw path. The scrape-time ledger figures are added by `PendingCallsMetrics`.
 */
export class BatonMetrics {
  readonly registry = new Registry();

  readonly turnRuns = new Counter({
    name: 'baton_turn_runs_total',
    help:
      'Runs of the agent loop, by what started them (start, resume, takeover) and how they ended ' +
      '(completed, paused, failed, cancelled, expired, superseded, error).',
    labelNames: ['run', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly turnRunDuration = new AccumulatedHistogram({
    name: 'baton_turn_run_duration_seconds',
    help: 'How long a run of the agent loop took, from its start (or resume) to its pause or end.',
    labelNames: ['run', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  /** The turns running in this process, read at scrape time (set once the engine exists). */
  runningTurns: () => number = () => 0;

  readonly turnsRunning: Gauge = new Gauge({
    name: 'baton_turns_running',
    help: 'Turns whose agent loop runs in this process now.',
    registers: [this.registry],
    collect: (): void => this.turnsRunning.set(this.runningTurns()),
  });

  readonly modelStepDuration = new AccumulatedHistogram({
    name: 'baton_model_step_duration_seconds',
    help: 'One model step (a call to the provider, with its retries), by provider, model and how it ended (its finish reason, or error).',
    labelNames: ['provider', 'model', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly modelTokens = new Counter({
    name: 'baton_model_tokens_total',
    help: 'Tokens the model providers reported, by provider, model and type (input, output).',
    labelNames: ['provider', 'model', 'type'] as const,
    registers: [this.registry],
  });

  readonly toolRunDuration = new AccumulatedHistogram({
    name: 'baton_tool_run_duration_seconds',
    help: 'Tool calls Baton ran itself, by kind (server, approved, fake) and outcome (ok, error, declined, aborted).',
    labelNames: ['kind', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly httpDuration = new AccumulatedHistogram({
    name: 'baton_http_request_duration_seconds',
    help: 'HTTP requests, by method, route pattern (never the raw path; "unmatched" for unknown routes) and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  readonly databaseStatements = new AccumulatedHistogram({
    name: 'baton_db_statement_duration_seconds',
    help: 'Database statements (BEGIN and COMMIT included), by outcome (ok, error).',
    labelNames: ['outcome'] as const,
    buckets: DATABASE_BUCKETS,
    registers: [this.registry],
  });

  readonly databaseConnectionWait = new AccumulatedHistogram<never>({
    name: 'baton_db_connection_wait_seconds',
    labelNames: [],
    help: "How long a connection was waited for: the pool's (PostgreSQL), or SQLite's one connection, which a transaction holds while others queue.",
    buckets: DATABASE_BUCKETS,
    registers: [this.registry],
  });

  /** The requests for a connection waiting now, read at scrape time (set by `DatabaseMetrics`). */
  connectionsWaiting: () => number = () => 0;

  readonly databaseConnectionsWaiting: Gauge = new Gauge({
    name: 'baton_db_connection_requests_waiting',
    help: 'Requests for a database connection waiting now.',
    registers: [this.registry],
    collect: (): void => this.databaseConnectionsWaiting.set(this.connectionsWaiting()),
  });

  readonly scrapeErrors = new Counter({
    name: 'baton_metrics_scrape_errors_total',
    help: 'Scrapes whose reading of the ledger failed (the ledger figures are then missing from that scrape).',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Gauges named `_total` break Prometheus's naming rules (promtool refuses them); the same
    // figures stay, by type, in nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
  }
}

/** `provider:model-id` as two labels; a model id without a provider is its own provider's. */
export function modelLabels(model: string): { provider: string; model: string } {
  const colon = model.indexOf(':');
  return colon < 0 ? { provider: model, model } : { provider: model.slice(0, colon), model: model.slice(colon + 1) };
}
