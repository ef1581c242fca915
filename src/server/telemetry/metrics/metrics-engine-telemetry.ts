import type { Counter } from 'prom-client';
import type { AccumulatedSeries } from './accumulated-histogram.ts';
import type { EngineTelemetry, ToolRunKind, ToolRunResult, TurnRunKind } from '../../../engine/index.ts';
import type { FinishReason, LedgerEntryRecord, TurnRecord, TurnUsage } from '../../../domain/records.ts';
import { BatonMetrics, modelLabels } from './baton-metrics.ts';
import { BoundedLabel, OTHER_LABEL_VALUE } from './bounded-label.ts';

/** Distinct models reported by name; later ones count as `_other`. */
const MAX_MODELS = 100;

/** How a run ended, as a label: the status it left the turn in (`superseded`: another process holds it now). */
const OUTCOME_OF_STATUS: Record<TurnRecord['status'], string> = {
  completed: 'completed',
  requires_action: 'paused',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'expired',
  in_progress: 'superseded',
};

/** One model's series, looked up once: a step records into them without building label sets. */
interface ModelSeries {
  input: Counter.Internal;
  output: Counter.Internal;
  duration: Map<string, AccumulatedSeries>;
  labels: { provider: string; model: string };
}

/**
 * The engine's hooks as Prometheus figures: turn runs by kind and outcome, model steps by model
 * (latency, tokens), tool runs by kind and outcome. Each records after the work, with labels
 * from bounded sets. The series are looked up once and kept: the hooks run on every request.
 */
export class MetricsEngineTelemetry implements EngineTelemetry {
  private readonly models = new BoundedLabel(MAX_MODELS);
  private readonly seriesOfModel = new Map<string, ModelSeries>();
  private readonly series = new Map<string, AccumulatedSeries | Counter.Internal>();

  constructor(private readonly metrics: BatonMetrics) {}

  turnRun<T extends { turn: TurnRecord }>(
    kind: TurnRunKind,
    _turn: TurnRecord,
    _agent: unknown,
    _turnCalls: readonly LedgerEntryRecord[],
    run: () => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const ended = (outcome: string) => {
      const key = `${kind}/${outcome}`;
      this.counter(`turns/${key}`, () => this.metrics.turnRuns.labels(kind, outcome)).inc();
      this.histogram(`turn-durations/${key}`, () =>
        this.metrics.turnRunDuration.series({ run: kind, outcome }),
      ).observe((performance.now() - started) / 1000);
    };
    return run().then(
      (result) => {
        ended(OUTCOME_OF_STATUS[result.turn.status]);
        return result;
      },
      (error: unknown) => {
        ended('error');
        throw error;
      },
    );
  }

  modelStep<T extends { usage: TurnUsage; finishReason: FinishReason }>(
    _turn: TurnRecord,
    model: string,
    step: () => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const series = this.modelSeries(model);
    const ended = (outcome: string) => {
      let duration = series.duration.get(outcome);
      if (!duration) {
        duration = this.metrics.modelStepDuration.series({ ...series.labels, outcome });
        series.duration.set(outcome, duration);
      }
      duration.observe((performance.now() - started) / 1000);
    };
    return step().then(
      (result) => {
        series.input.inc(result.usage.inputTokens);
        series.output.inc(result.usage.outputTokens);
        ended(result.finishReason);
        return result;
      },
      (error: unknown) => {
        ended('error');
        throw error;
      },
    );
  }

  toolRun<T extends ToolRunResult>(kind: ToolRunKind, _entry: LedgerEntryRecord, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const ended = (ranAs: string, outcome: string) =>
      this.histogram(`tools/${ranAs}/${outcome}`, () =>
        this.metrics.toolRunDuration.series({ kind: ranAs, outcome }),
      ).observe((performance.now() - started) / 1000);
    return run().then(
      (result) => {
        // A server tool in fake mode answered with its fake: it counts with the fakes.
        ended(result?.faked === true ? 'fake' : kind, result === null ? 'declined' : result.isError ? 'error' : 'ok');
        return result;
      },
      (error: unknown) => {
        ended(kind, 'aborted');
        throw error;
      },
    );
  }

  runContext(): string | null {
    return null;
  }

  private modelSeries(model: string): ModelSeries {
    const known = this.seriesOfModel.get(model);
    if (known) return known;
    // Past the bound, every later model shares the `_other` series (model ids always have a colon).
    const named = this.models.value(model) !== OTHER_LABEL_VALUE;
    const key = named ? model : OTHER_LABEL_VALUE;
    let series = this.seriesOfModel.get(key);
    if (!series) {
      const labels = named ? modelLabels(model) : { provider: OTHER_LABEL_VALUE, model: OTHER_LABEL_VALUE };
      series = {
        input: this.metrics.modelTokens.labels({ ...labels, type: 'input' }),
        output: this.metrics.modelTokens.labels({ ...labels, type: 'output' }),
        duration: new Map(),
        labels,
      };
      this.seriesOfModel.set(key, series);
    }
    return series;
  }

  private counter(key: string, make: () => Counter.Internal): Counter.Internal {
    let series = this.series.get(key) as Counter.Internal | undefined;
    if (!series) this.series.set(key, (series = make()));
    return series;
  }

  private histogram(key: string, make: () => AccumulatedSeries): AccumulatedSeries {
    let series = this.series.get(key) as AccumulatedSeries | undefined;
    if (!series) this.series.set(key, (series = make()));
    return series;
  }
}
