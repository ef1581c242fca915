import { startServer, type ServerChild } from './child-server.ts';
import { HttpClient, percentiles, type Percentiles } from './load.ts';
import { fmt, table } from './report.ts';
import { batonRoundTrip } from './round-trips.ts';
import { AUTH, closedLoop, Rotation, ThreadPool, TURNS_PER_THREAD, type Window } from './sdk-runner-round-trips.ts';

/**
 * The telemetry phase of `npm run bench` (alone: `BENCH_ONLY=telemetry`): what metrics and traces
 * cost the main round trip (a message paused on `request_approval`, then its result). Three
 * Baton children run side by side, alike but for telemetry:
 * - **off**: neither metrics nor traces (nothing of them is loaded);
 * - **metrics**: `/metrics` on, scraped once a second by this process while the variant runs;
 * - **metrics + traces**: the same, and every span exported over OTLP/HTTP (protobuf) to a
 *   receiver in a process of its own, which decodes and counts them.
 * At each level the variants take turns in short slices, in rotating order, after a warm-up each,
 * so drift and noise on a shared machine hit all three alike. Each client moves to a new thread
 * every 10 round trips, so histories stay short and alike. The figures are the round trips per
 * second of each variant over that of `off` (targets: ≥ 0.95 with metrics, ≥ 0.85 with traces).
 */

export type TelemetryVariant = 'off' | 'metrics' | 'both';
export const TELEMETRY_VARIANTS: readonly TelemetryVariant[] = ['off', 'metrics', 'both'];
export const TELEMETRY_TARGETS = { metrics: 0.95, both: 0.85 } as const;
const LABELS: Record<TelemetryVariant, string> = {
  off: 'telemetry off',
  metrics: 'metrics, scraped every 1 s',
  both: 'metrics + traces (OTLP)',
};
const METRICS_TOKEN = 'bench-metrics-token-0123456789';
const SCRAPE_INTERVAL_MS = 1_000;

export interface TelemetryVariantResult {
  variant: TelemetryVariant;
  clients: number;
  seconds: number;
  roundTrips: number;
  roundTripsPerSecond: number;
  roundTrip: Percentiles;
  /** Baton's CPU per round trip, ms. */
  serverCpuMsPerRoundTrip: number | null;
  serverCpuCores: number | null;
  errors: number;
  firstError: string | null;
  /** This variant's round trips per second over `off`'s at the same level. */
  ratio: number;
}

export interface TelemetryResult {
  levels: Array<{ clients: number; variants: TelemetryVariantResult[] }>;
  slices: number;
  sliceMs: number;
  warmupMs: number;
  scrapes: { count: number; failed: number; latencyMs: Percentiles; bytes: number };
  spans: { exported: number; requests: number; perRoundTrip: number | null };
}

export async function measureTelemetry(options: {
  levels: number[];
  warmupMs: number;
  durationMs: number;
  slices: number;
  log: (message: string) => void;
}): Promise<TelemetryResult> {
  const { levels, warmupMs, durationMs, slices, log } = options;
  const sliceMs = durationMs / slices;
  const receiver = await startServer('otlp-receiver-server.ts');
  const children = {} as Record<TelemetryVariant, ServerChild>;
  const clients = {} as Record<TelemetryVariant, HttpClient>;
  let scraper: Scraper | undefined;
  try {
    children.off = await startServer('baton-server.ts');
    children.metrics = await startServer('baton-server.ts', { BENCH_METRICS_TOKEN: METRICS_TOKEN });
    children.both = await startServer('baton-server.ts', {
      BENCH_METRICS_TOKEN: METRICS_TOKEN,
      BENCH_OTLP_TRACES_URL: `${receiver.url}/v1/traces`,
      OTEL_SERVICE_NAME: 'baton-bench',
    });
    for (const variant of TELEMETRY_VARIANTS)
      clients[variant] = new HttpClient(children[variant].url, { authorization: AUTH });
    const scrapes = new Scraper();
    scraper = scrapes;
    // Every round trip of the traced variant, warm-ups included: all of them export their spans.
    let tracedRoundTrips = 0;
    const results: TelemetryResult['levels'] = [];

    for (const level of levels) {
      // Threads for every round trip at up to 600 rt/s (a pool that runs out starts over, reusing threads).
      const poolSize = Math.ceil((((warmupMs + durationMs) / 1000) * 600) / TURNS_PER_THREAD) + level * 2;
      const rotations = {} as Record<TelemetryVariant, Rotation>;
      for (const variant of TELEMETRY_VARIANTS)
        rotations[variant] = new Rotation(
          new ThreadPool(await children[variant].call<string[]>('create-threads', { count: poolSize })),
        );
      const roundTrip = (variant: TelemetryVariant) => async (client: number) => {
        await batonRoundTrip(clients[variant], rotations[variant].thread(client));
        if (variant === 'both') tracedRoundTrips += 1;
      };
      const run = async (variant: TelemetryVariant, ms: number): Promise<Window> => {
        // Connections first (one per client), then the closed loop; the scraper runs only for the variants with metrics.
        await Promise.all(Array.from({ length: level }, () => clients[variant].get('/healthz')));
        if (variant !== 'off') scrapes.start(children[variant].url);
        try {
          return await closedLoop(level, ms, roundTrip(variant), children[variant].pid);
        } finally {
          await scrapes.stop();
        }
      };
      log(
        `telemetry, ${level} client(s): warm-up of each variant, then ${slices} alternating slices of ${sliceMs / 1000} s`,
      );
      scrapes.counting = false;
      for (const variant of TELEMETRY_VARIANTS) await run(variant, warmupMs);
      scrapes.counting = true;
      const windows: Record<TelemetryVariant, Window[]> = { off: [], metrics: [], both: [] };
      for (let slice = 0; slice < slices; slice++) {
        for (let k = 0; k < TELEMETRY_VARIANTS.length; k++) {
          const variant = TELEMETRY_VARIANTS[(slice + k) % TELEMETRY_VARIANTS.length]!;
          windows[variant].push(await run(variant, sliceMs));
        }
      }
      const variants = TELEMETRY_VARIANTS.map((variant) => summarise(variant, level, windows[variant], sliceMs));
      const off = variants[0]!.roundTripsPerSecond;
      for (const result of variants) result.ratio = result.roundTripsPerSecond / off;
      results.push({ clients: level, variants });
    }
    const spans = await receiver.call<{ requests: number; spans: number }>('stats');
    return {
      levels: results,
      slices,
      sliceMs,
      warmupMs,
      scrapes: scrapes.summary(),
      spans: {
        exported: spans.spans,
        requests: spans.requests,
        perRoundTrip: tracedRoundTrips > 0 ? spans.spans / tracedRoundTrips : null,
      },
    };
  } finally {
    scraper?.close();
    for (const client of Object.values(clients)) client.close();
    await Promise.all(Object.values(children).map((child) => child.stop()));
    await receiver.stop();
  }
}

function summarise(
  variant: TelemetryVariant,
  clients: number,
  windows: readonly Window[],
  sliceMs: number,
): TelemetryVariantResult {
  const seconds = (windows.length * sliceMs) / 1000;
  const latencies = windows.flatMap((window) => window.latencies);
  const cpu = windows.every((window) => window.serverCpuSeconds !== null)
    ? windows.reduce((sum, window) => sum + window.serverCpuSeconds!, 0)
    : null;
  return {
    variant,
    clients,
    seconds,
    roundTrips: latencies.length,
    roundTripsPerSecond: latencies.length / seconds,
    roundTrip: percentiles(latencies),
    serverCpuMsPerRoundTrip: cpu === null || latencies.length === 0 ? null : (cpu * 1000) / latencies.length,
    serverCpuCores: cpu === null ? null : cpu / seconds,
    errors: windows.reduce((sum, window) => sum + window.errors, 0),
    firstError: windows.find((window) => window.firstError !== null)?.firstError ?? null,
    ratio: 1,
  };
}

/**
 * GET /metrics once a second of a variant's measured time, as Prometheus would: the schedule
 * carries over from one of its slices to the next (the other variants' slices in between do not
 * count), on one kept-alive connection per variant.
 */
class Scraper {
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> = Promise.resolve();
  private readonly clients = new Map<string, HttpClient>();
  /** Per variant's URL: how long until its next scrape is due, in its measured time. */
  private readonly dueInMs = new Map<string, number>();
  /** The slice running: whose, and when its next scrape is due (performance.now()). */
  private slice: { url: string; nextAt: number } | null = null;
  private readonly latencies: number[] = [];
  private failed = 0;
  private bytes = 0;

  start(url: string): void {
    let client = this.clients.get(url);
    if (!client) {
      client = new HttpClient(url, { authorization: `Bearer ${METRICS_TOKEN}` });
      this.clients.set(url, client);
    }
    const scrapeClient = client;
    const slice = { url, nextAt: performance.now() + (this.dueInMs.get(url) ?? 0) };
    this.slice = slice;
    const scrape = () => {
      const started = performance.now();
      slice.nextAt = started + SCRAPE_INTERVAL_MS;
      this.timer = setTimeout(scrape, SCRAPE_INTERVAL_MS);
      const counted = this.counting;
      this.inFlight = scrapeClient.get('/metrics').then(
        (response) => {
          if (!counted) return;
          if (response.status !== 200) this.failed += 1;
          else {
            this.latencies.push(performance.now() - started);
            this.bytes = response.text.length;
          }
        },
        () => {
          if (counted) this.failed += 1;
        },
      );
    };
    this.timer = setTimeout(scrape, Math.max(0, slice.nextAt - performance.now()));
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.slice) this.dueInMs.set(this.slice.url, Math.max(0, this.slice.nextAt - performance.now()));
    this.slice = null;
    await this.inFlight;
  }

  /** Whether the scrapes made now count in the summary (not during warm-ups). */
  counting = false;

  close(): void {
    for (const client of this.clients.values()) client.close();
  }

  summary(): TelemetryResult['scrapes'] {
    return {
      count: this.latencies.length,
      failed: this.failed,
      latencyMs: percentiles(this.latencies),
      bytes: this.bytes,
    };
  }
}

export function telemetryReport(result: TelemetryResult | null): string[] {
  if (!result) return [];
  const rows = result.levels.flatMap((level) =>
    level.variants.map((variant) => [
      LABELS[variant.variant],
      String(variant.clients),
      fmt(variant.roundTripsPerSecond, 0),
      fmt(variant.roundTrip.p50, 2),
      fmt(variant.roundTrip.p99, 2),
      variant.serverCpuCores === null ? 'n/a' : fmt(variant.serverCpuCores, 2),
      variant.serverCpuMsPerRoundTrip === null ? 'n/a' : fmt(variant.serverCpuMsPerRoundTrip, 2),
      fmt(variant.ratio, 3),
      String(variant.errors),
    ]),
  );
  const lines = [
    '',
    `Telemetry: the round trip with telemetry off, with metrics (scraped every ${SCRAPE_INTERVAL_MS / 1000} s), ` +
      'and with metrics and traces exported over OTLP/HTTP, ' +
      `alternating in ${result.slices} slices of ${result.sliceMs / 1000} s after a ${result.warmupMs / 1000} s warm-up each`,
    table(
      ['variant', 'clients', 'rt/s', 'rt p50 ms', 'rt p99 ms', 'server CPU', 'CPU ms/rt', 'rt/s vs off', 'errors'],
      rows,
    ),
  ];
  for (const level of result.levels) {
    const ratio = (variant: TelemetryVariant) => level.variants.find((v) => v.variant === variant)?.ratio ?? NaN;
    const verdict = (variant: 'metrics' | 'both') => (ratio(variant) >= TELEMETRY_TARGETS[variant] ? 'met' : 'MISSED');
    lines.push(
      `  ${level.clients} client(s): metrics ${fmt(ratio('metrics'), 3)} of off (target ≥ ${TELEMETRY_TARGETS.metrics}: ${verdict('metrics')}); ` +
        `metrics + traces ${fmt(ratio('both'), 3)} (target ≥ ${TELEMETRY_TARGETS.both}: ${verdict('both')})`,
    );
  }
  const { scrapes, spans } = result;
  lines.push(
    `  ${scrapes.count} scrapes (${scrapes.failed} failed), p50 ${fmt(scrapes.latencyMs.p50, 2)} ms, max ${fmt(scrapes.latencyMs.max, 2)} ms, ` +
      `${Math.round(scrapes.bytes / 1024)} KB each; ${spans.exported} spans exported in ${spans.requests} requests` +
      (spans.perRoundTrip === null ? '' : `, ${fmt(spans.perRoundTrip, 2)} per traced round trip`),
  );
  return lines;
}
