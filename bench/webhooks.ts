import { startServer, type ServerChild } from './child-server.ts';
import { HttpClient, percentiles, type Percentiles } from './load.ts';
import { fmt, table } from './report.ts';
import { batonRoundTrip, createThreadsOverHttp } from './round-trips.ts';
import { AUTH, closedLoop, processCpuSeconds, type Window } from './sdk-runner-round-trips.ts';

/**
 * The webhooks phase of `npm run bench` (alone: `BENCH_ONLY=webhooks`), issue 20: what webhooks
 * cost the main round trip (a message paused on `request_approval`, then its result, on one
 * thread per client), with 0, 1 and 5 endpoints subscribed to every event (`"event_types":
 * ["*"]`). Three Baton children (bench/servers/baton-background-server.ts: loopback egress
 * allowed, the delivery worker at its default settings) run side by side, alike but for their
 * endpoints, which all point at one receiver in a process of its own
 * (bench/servers/webhook-receiver-server.ts, 204 at once).
 *
 * At each level the variants take turns in short slices, in rotating order, after a warm-up each,
 * so drift and noise on a shared machine hit all three alike. After each slice the phase waits
 * until the child has sent every delivery (no event left to fan out, no delivery pending): the
 * next slice starts clean, and the child's CPU from the slice's start to that point, over the
 * round trips of the slice, is what a round trip costs with its deliveries. The receiver notes
 * each delivery's lag (arrival minus the event's `timestamp`, the time of the change).
 *
 * Then, on children of their own that count every SQL statement and commit
 * (bench/statement-counter.ts, kept out of the load's CPU), one round trip at a time, each followed
 * by its deliveries before the next: the statements and commits a round trip costs with 0, 1 and 5
 * endpoints, its deliveries included, and the lag of deliveries when nothing else is queued.
 */

export const WEBHOOK_ENDPOINT_COUNTS = [0, 1, 5] as const;
type Variant = (typeof WEBHOOK_ENDPOINT_COUNTS)[number];
const DRAIN_POLL_MS = 10;
const DRAIN_TIMEOUT_MS = 120_000;

export interface WebhooksOptions {
  levels: number[];
  warmupMs: number;
  durationMs: number;
  slices: number;
  /** Sequential round trips on the counting children. */
  countedRoundTrips: number;
  log(message: string): void;
}

export interface WebhooksVariantResult {
  endpoints: number;
  clients: number;
  seconds: number;
  roundTrips: number;
  roundTripsPerSecond: number;
  /** Round trips of the slices over the slices' time plus the waits for their deliveries. */
  sustainedRoundTripsPerSecond: number;
  roundTrip: Percentiles;
  /** Baton's CPU from each slice's start until its deliveries were all sent, per round trip, ms. */
  serverCpuMsPerRoundTrip: number | null;
  /** Baton's CPU in the slices alone, in cores. */
  serverCpuCores: number | null;
  /** After each slice, until every delivery was sent, ms. */
  drainMs: { mean: number; max: number };
  errors: number;
  firstError: string | null;
  /** Over every round trip of the level (warm-up included): outbox events written, and deliveries the receiver got. */
  eventsPerRoundTrip: number;
  deliveriesPerRoundTrip: number;
  /** Deliveries by event type over the level. */
  deliveryTypes: Record<string, number>;
  failedDeliveries: number;
  /** Event created → received at the receiver, ms, over the measured slices' deliveries. */
  lagMs: Percentiles | null;
  /** Over the same figure with no endpoint. */
  ratio: number;
  cpuRatio: number | null;
  p50Ratio: number;
  p99Ratio: number;
}

/** One round trip at a time, each waiting for its deliveries (the counted children). */
export interface WebhooksCounted {
  endpoints: number;
  roundTrips: number;
  statementsPerRoundTrip: number;
  commitsPerRoundTrip: number;
  deliveriesPerRoundTrip: number;
  /** Event created → received, ms, with nothing else queued. */
  lagMs: Percentiles | null;
  /** The round trip's answer → its last delivery received, ms. */
  settleMs: Percentiles | null;
  /** Round trips whose deliveries did not all arrive within the wait. */
  unsettled: number;
}

export interface WebhooksResult {
  levels: Array<{ clients: number; variants: WebhooksVariantResult[] }>;
  counted: WebhooksCounted[];
  slices: number;
  sliceMs: number;
  warmupMs: number;
}

interface Backlog {
  unfanned: number;
  pending: number;
}

interface Counts {
  events: number;
  failed: number;
}

interface ReceiverStats {
  deliveries: number;
  endpoints: Record<string, number>;
  types: Record<string, number>;
  lagsMs: number[];
  unparsed: number;
}

const key = (endpoints: number) => `e${endpoints}`;
const countedKey = (endpoints: number) => `c${endpoints}`;
/** How long a counted round trip waits for its deliveries. */
const SETTLE_TIMEOUT_MS = 5_000;

async function createEndpoints(http: HttpClient, receiverUrl: string, variant: string, count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    const created = await http.post(
      '/v1/webhook-endpoints',
      JSON.stringify({
        url: `${receiverUrl}/hooks/${variant}/${n}`,
        event_types: ['*'],
        description: `bench receiver ${n}`,
      }),
    );
    if (created.status !== 201) throw new Error(`webhook endpoint answered ${created.status}: ${created.text}`);
  }
}

export async function measureWebhooks(options: WebhooksOptions): Promise<WebhooksResult> {
  const { levels, warmupMs, durationMs, slices, countedRoundTrips, log } = options;
  const sliceMs = durationMs / slices;
  const receiver = await startServer('webhook-receiver-server.ts');
  const children = new Map<Variant, ServerChild>();
  const clients = new Map<Variant, HttpClient>();
  try {
    for (const endpoints of WEBHOOK_ENDPOINT_COUNTS) {
      const child = await startServer('baton-background-server.ts');
      children.set(endpoints, child);
      const http = new HttpClient(child.url, { authorization: AUTH });
      clients.set(endpoints, http);
      await createEndpoints(http, receiver.url, key(endpoints), endpoints);
    }
    const child = (variant: Variant) => children.get(variant)!;
    const http = (variant: Variant) => clients.get(variant)!;
    const backlog = (variant: Variant) => child(variant).call<Backlog>('webhook-backlog');
    const counts = (variant: Variant) => child(variant).call<Counts>('webhook-counts');
    const receiverStats = () => receiver.call<Record<string, ReceiverStats>>('stats');
    /** Waits until the child has no event left to fan out and no delivery pending; returns the wait, ms. */
    const drain = async (variant: Variant): Promise<number> => {
      const started = performance.now();
      for (;;) {
        const now = await backlog(variant);
        if (now.unfanned === 0 && now.pending === 0) return performance.now() - started;
        if (performance.now() - started > DRAIN_TIMEOUT_MS)
          throw new Error(
            `${variant} endpoint(s): deliveries still pending after ${DRAIN_TIMEOUT_MS} ms: ${JSON.stringify(now)}`,
          );
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      }
    };
    const results: WebhooksResult['levels'] = [];

    for (const level of levels) {
      const threads = new Map<Variant, string[]>();
      for (const variant of WEBHOOK_ENDPOINT_COUNTS)
        threads.set(variant, await createThreadsOverHttp(http(variant), level));
      const done = new Map<Variant, number>(WEBHOOK_ENDPOINT_COUNTS.map((variant) => [variant, 0]));
      const run = async (
        variant: Variant,
        ms: number,
      ): Promise<{ window: Window; roundTrips: number; cpu: number | null; drainMs: number }> => {
        await Promise.all(Array.from({ length: level }, () => http(variant).get('/healthz')));
        const cpuBefore = await processCpuSeconds(child(variant).pid);
        const before = done.get(variant)!;
        const window = await closedLoop(
          level,
          ms,
          async (client) => {
            await batonRoundTrip(http(variant), threads.get(variant)![client]!);
            done.set(variant, done.get(variant)! + 1);
          },
          child(variant).pid,
        );
        const drainMs = variant === 0 ? 0 : await drain(variant);
        const cpuAfter = await processCpuSeconds(child(variant).pid);
        return {
          window,
          roundTrips: done.get(variant)! - before,
          cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
          drainMs,
        };
      };
      const countsAtStart = new Map<Variant, Counts>();
      for (const variant of WEBHOOK_ENDPOINT_COUNTS) countsAtStart.set(variant, await counts(variant));
      const receivedAtStart = await receiverStats();
      log(
        `webhooks, ${level} client(s): warm-up of each variant, then ${slices} alternating slices of ${sliceMs / 1000} s`,
      );
      for (const variant of WEBHOOK_ENDPOINT_COUNTS) await run(variant, warmupMs);
      await receiver.call('reset-lags');
      const runs: Record<Variant, Awaited<ReturnType<typeof run>>[]> = { 0: [], 1: [], 5: [] };
      for (let slice = 0; slice < slices; slice++) {
        for (let k = 0; k < WEBHOOK_ENDPOINT_COUNTS.length; k++) {
          const variant = WEBHOOK_ENDPOINT_COUNTS[(slice + k) % WEBHOOK_ENDPOINT_COUNTS.length]!;
          runs[variant].push(await run(variant, sliceMs));
        }
      }
      const received = await receiverStats();
      const variants: WebhooksVariantResult[] = [];
      for (const variant of WEBHOOK_ENDPOINT_COUNTS) {
        const start = countsAtStart.get(variant)!;
        const end = await counts(variant);
        const roundTripsOfLevel = done.get(variant)!;
        const got = received[key(variant)];
        const gotBefore = receivedAtStart[key(variant)];
        const types: Record<string, number> = {};
        for (const [type, n] of Object.entries(got?.types ?? {})) {
          const delta = n - (gotBefore?.types[type] ?? 0);
          if (delta > 0) types[type] = delta;
        }
        variants.push(
          summarise(variant, level, runs[variant], sliceMs, {
            eventsPerRoundTrip: (end.events - start.events) / roundTripsOfLevel,
            deliveriesPerRoundTrip: ((got?.deliveries ?? 0) - (gotBefore?.deliveries ?? 0)) / roundTripsOfLevel,
            deliveryTypes: types,
            failedDeliveries: end.failed - start.failed,
            lagMs: got && got.lagsMs.length > 0 ? percentiles(got.lagsMs) : null,
          }),
        );
      }
      const none = variants[0]!;
      for (const result of variants) {
        result.ratio = result.roundTripsPerSecond / none.roundTripsPerSecond;
        result.cpuRatio =
          result.serverCpuMsPerRoundTrip === null || none.serverCpuMsPerRoundTrip === null
            ? null
            : result.serverCpuMsPerRoundTrip / none.serverCpuMsPerRoundTrip;
        result.p50Ratio = result.roundTrip.p50 / none.roundTrip.p50;
        result.p99Ratio = result.roundTrip.p99 / none.roundTrip.p99;
      }
      results.push({ clients: level, variants });
    }
    for (const client of clients.values()) client.close();
    clients.clear();
    await Promise.all([...children.values()].map((child) => child.stop()));
    children.clear();
    const counted: WebhooksCounted[] = [];
    for (const endpoints of WEBHOOK_ENDPOINT_COUNTS) {
      log(
        `webhooks: counting statements and commits with ${endpoints} endpoint(s), ${countedRoundTrips} round trips one at a time`,
      );
      counted.push(await countWork(receiver, endpoints, countedRoundTrips));
    }
    return { levels: results, counted, slices, sliceMs, warmupMs };
  } finally {
    for (const client of clients.values()) client.close();
    await Promise.all([...children.values()].map((child) => child.stop()));
    await receiver.stop();
  }
}

/**
 * On a child that counts its statements and commits: round trips one at a time, each followed by
 * its deliveries (as many as the first round trip had, polled at the receiver, so the polling adds
 * no statement to the count).
 */
async function countWork(receiver: ServerChild, endpoints: number, roundTrips: number): Promise<WebhooksCounted> {
  const child = await startServer('baton-background-server.ts', { BENCH_COUNT_STATEMENTS: '1' });
  const http = new HttpClient(child.url, { authorization: AUTH });
  try {
    await createEndpoints(http, receiver.url, countedKey(endpoints), endpoints);
    const [thread] = await createThreadsOverHttp(http, 1);
    const received = () => receiver.call<number>('count', { variant: countedKey(endpoints) });
    /** Waits until `target` deliveries arrived (or, without a target, none for 300 ms); returns the wait, ms, or null on timeout. */
    const settle = async (target: number | null): Promise<number | null> => {
      const started = performance.now();
      let last = await received();
      let changedAt = started;
      for (;;) {
        if (target !== null && last >= target) return performance.now() - started;
        if (target === null && performance.now() - changedAt >= 300) return changedAt - started;
        if (performance.now() - started > SETTLE_TIMEOUT_MS) return null;
        await new Promise((resolve) => setTimeout(resolve, 2));
        const now = await received();
        if (now !== last) changedAt = performance.now();
        last = now;
      }
    };
    // Warm-up; the first round trip also tells how many deliveries one brings.
    const first = await received();
    await batonRoundTrip(http, thread!);
    await settle(null);
    const perRoundTrip = (await received()) - first;
    for (let i = 0; i < 20; i++) {
      const before = await received();
      await batonRoundTrip(http, thread!);
      await settle(endpoints === 0 ? null : before + perRoundTrip);
    }
    await receiver.call('reset-lags');
    const statements0 = await child.call<number>('statements');
    const commits0 = await child.call<number>('commits');
    const received0 = await received();
    const settles: number[] = [];
    let unsettled = 0;
    for (let i = 0; i < roundTrips; i++) {
      const before = await received();
      await batonRoundTrip(http, thread!);
      if (endpoints === 0) continue;
      const waited = await settle(before + perRoundTrip);
      if (waited === null) unsettled += 1;
      else settles.push(waited);
    }
    if (endpoints > 0) await settle(null);
    const statements = (await child.call<number>('statements')) - statements0;
    const commits = (await child.call<number>('commits')) - commits0;
    const stats = await receiver.call<Record<string, ReceiverStats>>('stats');
    const lags = stats[countedKey(endpoints)]?.lagsMs ?? [];
    return {
      endpoints,
      roundTrips,
      statementsPerRoundTrip: statements / roundTrips,
      commitsPerRoundTrip: commits / roundTrips,
      deliveriesPerRoundTrip: ((await received()) - received0) / roundTrips,
      lagMs: lags.length > 0 ? percentiles(lags) : null,
      settleMs: settles.length > 0 ? percentiles(settles) : null,
      unsettled,
    };
  } finally {
    http.close();
    await child.stop();
  }
}

function summarise(
  endpoints: number,
  clients: number,
  runs: ReadonlyArray<{ window: Window; roundTrips: number; cpu: number | null; drainMs: number }>,
  sliceMs: number,
  deliveries: Pick<
    WebhooksVariantResult,
    'eventsPerRoundTrip' | 'deliveriesPerRoundTrip' | 'deliveryTypes' | 'failedDeliveries' | 'lagMs'
  >,
): WebhooksVariantResult {
  const seconds = (runs.length * sliceMs) / 1000;
  const latencies = runs.flatMap((run) => run.window.latencies);
  const drains = runs.map((run) => run.drainMs);
  const drainSeconds = drains.reduce((sum, ms) => sum + ms, 0) / 1000;
  const cpu = runs.every((run) => run.cpu !== null) ? runs.reduce((sum, run) => sum + run.cpu!, 0) : null;
  const allRoundTrips = runs.reduce((sum, run) => sum + run.roundTrips, 0);
  const sliceCpu = runs.every((run) => run.window.serverCpuSeconds !== null)
    ? runs.reduce((sum, run) => sum + run.window.serverCpuSeconds!, 0)
    : null;
  return {
    endpoints,
    clients,
    seconds,
    roundTrips: latencies.length,
    roundTripsPerSecond: latencies.length / seconds,
    sustainedRoundTripsPerSecond: latencies.length / (seconds + drainSeconds),
    roundTrip: percentiles(latencies),
    serverCpuMsPerRoundTrip: cpu === null || allRoundTrips === 0 ? null : (cpu * 1000) / allRoundTrips,
    serverCpuCores: sliceCpu === null ? null : sliceCpu / seconds,
    drainMs: {
      mean: drains.reduce((sum, ms) => sum + ms, 0) / Math.max(1, drains.length),
      max: Math.max(0, ...drains),
    },
    errors: runs.reduce((sum, run) => sum + run.window.errors, 0),
    firstError: runs.find((run) => run.window.firstError !== null)?.window.firstError ?? null,
    ...deliveries,
    ratio: 1,
    cpuRatio: 1,
    p50Ratio: 1,
    p99Ratio: 1,
  };
}

export function webhooksReport(result: WebhooksResult | null): string[] {
  if (!result) return [];
  const rows = result.levels.flatMap((level) =>
    level.variants.map((variant) => [
      String(variant.endpoints),
      String(variant.clients),
      fmt(variant.roundTripsPerSecond, 0),
      fmt(variant.sustainedRoundTripsPerSecond, 0),
      fmt(variant.roundTrip.p50, 2),
      fmt(variant.roundTrip.p99, 2),
      variant.serverCpuCores === null ? 'n/a' : fmt(variant.serverCpuCores, 2),
      variant.serverCpuMsPerRoundTrip === null ? 'n/a' : fmt(variant.serverCpuMsPerRoundTrip, 2),
      fmt(variant.ratio, 3),
      variant.cpuRatio === null ? 'n/a' : fmt(variant.cpuRatio, 2),
      fmt(variant.p99Ratio, 2),
      fmt(variant.eventsPerRoundTrip, 2),
      fmt(variant.deliveriesPerRoundTrip, 2),
      variant.lagMs === null ? '' : fmt(variant.lagMs.p50, 1),
      variant.lagMs === null ? '' : fmt(variant.lagMs.p99, 1),
      variant.endpoints === 0 ? '' : fmt(variant.drainMs.mean, 0),
      String(variant.errors + variant.failedDeliveries),
    ]),
  );
  return [
    '',
    'Webhooks: the round trip (thread per client) with 0, 1 and 5 endpoints subscribed to every event, sent to a local ' +
      `receiver answering 204; alternating in ${result.slices} slices of ${result.sliceMs / 1000} s after a ` +
      `${result.warmupMs / 1000} s warm-up each, every slice's deliveries sent before the next`,
    table(
      [
        'endpoints',
        'clients',
        'rt/s',
        'rt/s incl. drain',
        'rt p50 ms',
        'rt p99 ms',
        'server CPU',
        'CPU ms/rt',
        'rt/s vs 0',
        'CPU/rt vs 0',
        'p99 vs 0',
        'events/rt',
        'deliveries/rt',
        'lag p50 ms',
        'lag p99 ms',
        'drain ms',
        'errors',
      ],
      rows,
    ),
    "  CPU ms/rt: Baton from each slice's start until its deliveries were all sent, over the slice's round trips; " +
      'lag: event created → received; drain: mean wait after a slice for its last deliveries; errors: failed round trips + failed deliveries',
    '',
    `Webhooks, counted: ${result.counted[0]?.roundTrips ?? 0} round trips one at a time, each followed by its deliveries, ` +
      'on children counting every statement and commit (BEGIN and COMMIT included)',
    table(
      [
        'endpoints',
        'statements/rt',
        'commits/rt',
        'deliveries/rt',
        'statements/delivery',
        'commits/delivery',
        'lag p50 ms',
        'lag p99 ms',
        'answer → last delivery p50 ms',
        'p99 ms',
        'unsettled',
      ],
      result.counted.map((counted) => {
        const none = result.counted.find((c) => c.endpoints === 0);
        const per = (value: number, base: number | undefined) =>
          counted.deliveriesPerRoundTrip > 0 && base !== undefined
            ? fmt((value - base) / counted.deliveriesPerRoundTrip, 1)
            : '';
        return [
          String(counted.endpoints),
          fmt(counted.statementsPerRoundTrip, 1),
          fmt(counted.commitsPerRoundTrip, 2),
          fmt(counted.deliveriesPerRoundTrip, 2),
          per(counted.statementsPerRoundTrip, none?.statementsPerRoundTrip),
          per(counted.commitsPerRoundTrip, none?.commitsPerRoundTrip),
          counted.lagMs === null ? '' : fmt(counted.lagMs.p50, 1),
          counted.lagMs === null ? '' : fmt(counted.lagMs.p99, 1),
          counted.settleMs === null ? '' : fmt(counted.settleMs.p50, 1),
          counted.settleMs === null ? '' : fmt(counted.settleMs.p99, 1),
          String(counted.unsettled),
        ];
      }),
    ),
  ];
}
