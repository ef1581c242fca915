import { Histogram, type Registry } from 'prom-client';

type HistogramData = Awaited<ReturnType<Histogram<string>['get']>>;
type HistogramValue = HistogramData['values'][number];

/** One labelled series: counts per bucket (not cumulative; the last one past every bound), sum, count. */
export class AccumulatedSeries {
  private readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string | number>>,
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let index = 0;
    while (index < this.bounds.length && value > this.bounds[index]!) index += 1;
    this.counts[index]! += 1;
    this.sum += value;
    this.count += 1;
  }

  /** Cumulative counts per bound, as the exposition's buckets are. */
  cumulative(): number[] {
    let total = 0;
    return this.bounds.map((_bound, index) => (total += this.counts[index]!));
  }
}

/**
 * A Prometheus histogram for the request path: each series is looked up once and then observed
 * with a bucket search and three additions, where prom-client's own histogram builds, checks and
 * hashes a label set on every observation (some 30 per round trip here). The exposition is
 * written from the series when Prometheus scrapes, in prom-client's format, from its registry.
 */
export class AccumulatedHistogram<Label extends string> extends Histogram<Label> {
  private readonly all = new Map<string, AccumulatedSeries>();
  private readonly metricName: string;
  private readonly metricHelp: string;
  private readonly bounds: readonly number[];

  constructor(config: {
    name: string;
    help: string;
    labelNames: readonly Label[];
    buckets: readonly number[];
    registers: Registry[];
  }) {
    super({ ...config, buckets: [...config.buckets] });
    this.metricName = config.name;
    this.metricHelp = config.help;
    this.bounds = [...config.buckets].sort((a, b) => a - b);
  }

  /** The series of these label values, to keep and observe into. */
  series(labels: Readonly<Record<Label, string | number>>): AccumulatedSeries {
    const key = JSON.stringify(labels);
    let series = this.all.get(key);
    if (!series) {
      series = new AccumulatedSeries(this.bounds, labels);
      this.all.set(key, series);
    }
    return series;
  }

  /** What the registry reads to write the exposition, and `get` too (prom-client's typings leave it out). */
  async getForPromString(): Promise<HistogramData> {
    const values: HistogramValue[] = [];
    const line = (suffix: string, labels: Record<string, string | number>, value: number): HistogramValue => ({
      metricName: `${this.metricName}_${suffix}`,
      labels: labels as HistogramValue['labels'],
      value,
    });
    for (const series of this.all.values()) {
      const cumulative = series.cumulative();
      this.bounds.forEach((bound, index) =>
        values.push(line('bucket', { le: bound, ...series.labels }, cumulative[index] ?? 0)),
      );
      values.push(line('bucket', { le: '+Inf', ...series.labels }, series.count));
      values.push(line('sum', { ...series.labels }, series.sum));
      values.push(line('count', { ...series.labels }, series.count));
    }
    // The shape prom-client's own histogram returns (its typings add a `collect` it never sets).
    return {
      name: this.metricName,
      help: this.metricHelp,
      type: 'histogram',
      aggregator: 'sum',
      values,
    } as unknown as HistogramData;
  }
}
