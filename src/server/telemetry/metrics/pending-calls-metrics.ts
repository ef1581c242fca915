import { Gauge, Histogram } from 'prom-client';
import type { PendingCallGroup } from '../../../domain/queries.ts';
import type { BatonMetrics } from './baton-metrics.ts';
import { OTHER_LABEL_VALUE } from './bounded-label.ts';

/** Age buckets of pending calls, in seconds: from a client that answers at once to a week-old approval. */
export const PENDING_AGE_BUCKETS = [1, 5, 30, 60, 300, 900, 3600, 21_600, 86_400, 604_800] as const;

/** Agents reported by name, the ones with the most pending calls first; the rest are `_other`. */
const MAX_AGENTS = 100;

/** What the scrape reads: the store's one grouped query (`LedgerRepo.summarisePending`). */
export type PendingCallsSource = (now: string, ageBounds: readonly number[]) => Promise<PendingCallGroup[]>;

type Labels = 'agent' | 'kind' | 'state';

/**
 * The ledger's pending calls, read from the store when Prometheus scrapes, for the whole
 * database (every app): how many there are by agent, kind and state (`waiting`, or `overdue`: its
 * deadline passed and the sweeper has not applied it yet), and a histogram of their age by kind.
 * One grouped query per scrape, shared by both metrics, whatever the number of calls; nothing is
 * counted in the request path. With several replicas on one database every replica reports the
 * same figures: aggregate them with max, not sum.
 */
export class PendingCallsMetrics {
  private source: PendingCallsSource | null = null;
  private reading: Promise<PendingCallGroup[] | null> | null = null;

  constructor(
    private readonly metrics: BatonMetrics,
    private readonly now: () => Date,
    private readonly onError: (error: unknown) => void,
  ) {
    const read = () => this.read();
    new Gauge<Labels>({
      name: 'baton_pending_calls',
      help: 'Pending tool calls and approvals in the ledger (all apps), by agent, kind (client, client_async, approval) and state (waiting, overdue).',
      labelNames: ['agent', 'kind', 'state'],
      registers: [metrics.registry],
      async collect() {
        this.reset();
        for (const group of countsByAgent((await read()) ?? [])) this.set(group.labels, group.count);
      },
    });
    new PendingAgeHistogram(metrics, read);
  }

  /** From now on, scrapes read this source (the store, once it is open). */
  watch(source: PendingCallsSource): void {
    this.source = source;
  }

  /** One read per scrape: both metrics ask at once, and share it. A failed read is counted and leaves them empty. */
  private read(): Promise<PendingCallGroup[] | null> {
    const source = this.source;
    if (!source) return Promise.resolve(null);
    this.reading ??= source(this.now().toISOString(), PENDING_AGE_BUCKETS)
      .catch((error: unknown) => {
        this.metrics.scrapeErrors.inc();
        this.onError(error);
        return null;
      })
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }
}

/** Groups added up per agent, kind and state; past `MAX_AGENTS` agents, the smallest are `_other`. */
function countsByAgent(groups: readonly PendingCallGroup[]): { labels: Record<Labels, string>; count: number }[] {
  const perAgent = new Map<string, number>();
  for (const group of groups) perAgent.set(group.agentName, (perAgent.get(group.agentName) ?? 0) + group.count);
  const named = new Set(
    [...perAgent.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, MAX_AGENTS)
      .map(([agent]) => agent),
  );
  const counts = new Map<string, { labels: Record<Labels, string>; count: number }>();
  for (const group of groups) {
    const labels = {
      agent: named.has(group.agentName) ? group.agentName : OTHER_LABEL_VALUE,
      kind: group.kind,
      state: group.overdue ? 'overdue' : 'waiting',
    };
    const key = `${labels.agent}\u0000${labels.kind}\u0000${labels.state}`;
    const entry = counts.get(key) ?? { labels, count: 0 };
    entry.count += group.count;
    counts.set(key, entry);
  }
  return [...counts.values()];
}

const AGE_METRIC = 'baton_pending_call_age_seconds';

type HistogramData = Awaited<ReturnType<Histogram<'kind'>['get']>>;
type HistogramValue = HistogramData['values'][number];

/**
 * A histogram whose buckets are counted by the store at scrape time rather than observed one by
 * one: the exposition's bucket, sum and count lines are built from the grouped read.
 */
class PendingAgeHistogram extends Histogram<'kind'> {
  constructor(
    metrics: BatonMetrics,
    private readonly read: () => Promise<PendingCallGroup[] | null>,
  ) {
    super({
      name: AGE_METRIC,
      help: 'Age of the pending tool calls and approvals in the ledger (all apps), by kind, read at scrape time.',
      labelNames: ['kind'],
      buckets: [...PENDING_AGE_BUCKETS],
      registers: [metrics.registry],
    });
  }

  /**
   * What the registry reads to write the exposition, and `get` too (prom-client's histogram builds
   * it from observations; its typings leave this method out).
   */
  async getForPromString(): Promise<HistogramData> {
    const perKind = new Map<string, { buckets: number[]; count: number; sum: number }>();
    for (const group of (await this.read()) ?? []) {
      let kind = perKind.get(group.kind);
      if (!kind) {
        kind = { buckets: PENDING_AGE_BUCKETS.map(() => 0), count: 0, sum: 0 };
        perKind.set(group.kind, kind);
      }
      // Cumulative, as Prometheus buckets are: a call counts in its bucket and every larger one.
      for (let index = group.ageBucket; index < kind.buckets.length; index++) kind.buckets[index]! += group.count;
      kind.count += group.count;
      kind.sum += group.ageSecondsSum;
    }
    const values: HistogramValue[] = [];
    const line = (suffix: string, labels: Record<string, string | number>, value: number): HistogramValue => ({
      metricName: `${AGE_METRIC}_${suffix}`,
      labels: labels as HistogramValue['labels'],
      value,
    });
    for (const [kind, figures] of perKind) {
      PENDING_AGE_BUCKETS.forEach((bound, index) =>
        values.push(line('bucket', { le: bound, kind }, figures.buckets[index] ?? 0)),
      );
      values.push(line('bucket', { le: '+Inf', kind }, figures.count));
      values.push(line('sum', { kind }, figures.sum));
      values.push(line('count', { kind }, figures.count));
    }
    // The shape prom-client's own histogram returns (its typings add a `collect` it never sets).
    const help = 'Age of the pending tool calls and approvals in the ledger (all apps), by kind, read at scrape time.';
    return { name: AGE_METRIC, help, type: 'histogram', aggregator: 'sum', values } as unknown as HistogramData;
  }
}
