import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { Baton } from '@baton/client';
import { ADMIN_KEY } from '../test/helpers/test-baton.ts';
import { startServer, type ServerChild } from './child-server.ts';
import { HttpClient, percentiles } from './load.ts';
import { summariseProfile } from './profile-summary.ts';
import { batonRoundTrip } from './round-trips.ts';
import type { SqlStat } from './sql-stats.ts';
import {
  VARIANTS,
  type Variant,
  LABELS,
  type SdkRunnerOptions,
  type VariantLoad,
  type Step,
  type SdkRunnerLevel,
  type SequentialVariant,
  type SdkRunnerResult,
} from './sdk-runner-types.ts';
import {
  BENCH_DIR,
  REPO_ROOT,
  TURNS_PER_THREAD,
  AUTH,
  ThreadPool,
  Rotation,
  fetchRoundTrip,
  sdkRoundTrip,
  referenceRoundTrip,
  type Window,
  closedLoop,
} from './sdk-runner-round-trips.ts';
import { measureInProcess, measureKeyDerivation } from './sdk-runner-in-process.ts';
import { sdkRunnerReport } from './sdk-runner-report.ts';

/**
 * The SDK-runner phase of `npm run bench`: what `@baton/client`'s tool loop
 * (`baton.threads.run(id, SEED_TEXT, { tools: { request_approval } })`) costs beside the same
 * pause/resume round trip written by hand, against one Baton child (bench/servers/baton-server.ts).
 *
 * Four ways to make the same round trip (seed → tool_use → one tool_result message → answer):
 *   handHttp       `batonRoundTrip` over bench/load.ts's HttpClient (node:http, keep-alive Agent): the baseline;
 *   handFetch      the same two POSTs written by hand over the global fetch (undici), the SDK's transport;
 *   handFetchKeys  handFetch plus an `Idempotency-Key` on both POSTs (random UUIDs) and `accept`,
 *                  as the SDK sends them: the server then also reserves and stores each response;
 *   sdk            `baton.threads.run`: the same two requests, plus the runner (handler dispatch,
 *                  the results key derived with Web Crypto sha256, the Transport's retry/timeout wrapper).
 * So sdk − handHttp splits into transport (handFetch − handHttp), server-side idempotency
 * (handFetchKeys − handFetch) and the runner's own client-side cost (sdk − handFetchKeys).
 *
 * At each level the variants run alternately in short slices (rotating order), so drift and
 * noise on this shared machine hit all four alike. Each client moves to a new thread every
 * TURNS_PER_THREAD round trips, so histories stay short and alike. Every variant checks that the
 * final answer equals the one the hand-written path got.
 *
 *   node --import tsx bench/sdk-runner.ts   runs this phase alone (BENCH_QUICK=1 for a short run).
 */

const ratio = (a: number, b: number) => (b > 0 ? a / b : NaN);

function step(from: VariantLoad, to: VariantLoad): Step {
  return {
    throughput: ratio(to.roundTripsPerSecond, from.roundTripsPerSecond),
    addedP50Ms: to.roundTrip.p50 - from.roundTrip.p50,
    addedP99Ms: to.roundTrip.p99 - from.roundTrip.p99,
    addedClientCpuMs: to.clientCpuMsPerRoundTrip - from.clientCpuMsPerRoundTrip,
    addedServerCpuMs: to.serverCpuMsPerRoundTrip - from.serverCpuMsPerRoundTrip,
  };
}

/** Where client CPU goes, by the file of the frame (or of the native frame's JavaScript caller). */
function groupOf(where: string, name: string): string {
  if (name === '(garbage collector)') return '(gc)';
  if (where.includes('packages/client/')) return '@baton/client';
  if (/undici|webstreams/.test(where)) return 'fetch (undici, web streams)';
  if (where.includes('node:internal/crypto')) return 'crypto (keys: Web Crypto digest, randomUUID)';
  if (where.includes('abort_controller')) return 'AbortController / AbortSignal';
  if (where.includes('js_transferable')) return 'makeTransferable (of AbortSignals and web streams)';
  if (where.includes('/bench/') || where.startsWith('bench/')) return 'bench';
  if (/node:(_http|http|net|internal\/(http|_http|net|stream_base))/.test(where)) return 'node:http / net';
  return 'other (node internals, V8)';
}

export async function measureSdkRunner(options: SdkRunnerOptions): Promise<SdkRunnerResult> {
  const { levels, warmupMs, durationMs, slices, log } = options;
  let server: ServerChild | null = null;
  let http: HttpClient | null = null;
  try {
    server = await startServer('baton-server.ts');
    const child = server;
    const pid = server.pid;
    const baseUrl = server.url;
    const client = (http = new HttpClient(baseUrl, { authorization: AUTH }));
    const baton = new Baton({ baseURL: baseUrl, apiKey: ADMIN_KEY });
    const [checkThread, sdkCheckThread] = await child.call<string[]>('create-threads', { count: 2 });
    const reference = await referenceRoundTrip(client, checkThread!);
    const expected = reference.answer;

    // One SDK round trip through a counting fetch: it must make the same two requests.
    const sdkRequests: SdkRunnerResult['sdkRequests'] = [];
    const counting = new Baton({
      baseURL: baseUrl,
      apiKey: ADMIN_KEY,
      fetch: (input, init) => {
        sdkRequests.push({
          method: init.method ?? 'GET',
          path: new URL(input).pathname,
          idempotencyKey: new Headers(init.headers).has('idempotency-key'),
        });
        return fetch(input, init);
      },
    });
    await sdkRoundTrip(counting, sdkCheckThread!, expected);
    if (sdkRequests.length !== 2 || sdkRequests.some((request) => request.method !== 'POST'))
      throw new Error(`the SDK round trip made other requests: ${JSON.stringify(sdkRequests)}`);

    const roundTrips = (rotation: Record<Variant, Rotation>): Record<Variant, (c: number) => Promise<void>> => ({
      handHttp: (c) => batonRoundTrip(client, rotation.handHttp.thread(c)),
      handFetch: (c) => fetchRoundTrip(baseUrl, rotation.handFetch.thread(c), false, expected),
      handFetchKeys: (c) => fetchRoundTrip(baseUrl, rotation.handFetchKeys.thread(c), true, expected),
      sdk: (c) => sdkRoundTrip(baton, rotation.sdk.thread(c), expected),
    });
    const rotations = (pool: ThreadPool) =>
      Object.fromEntries(VARIANTS.map((variant) => [variant, new Rotation(pool)])) as Record<Variant, Rotation>;
    /** Opens `clients` keep-alive connections of the variant's transport before its slice (undici drops idle ones after 4 s). */
    const preconnect = (variant: Variant, clients: number) =>
      Promise.all(
        Array.from({ length: clients }, async () => {
          if (variant === 'handHttp') await client.get('/healthz');
          else await (await fetch(`${baseUrl}/healthz`, { headers: { authorization: AUTH } })).text();
        }),
      );

    const results: SdkRunnerLevel[] = [];
    let rateGuess = 500;
    const sliceMs = durationMs / slices;
    for (const clients of levels) {
      const poolSize =
        Math.ceil((rateGuess * VARIANTS.length * (warmupMs + durationMs)) / 1000 / TURNS_PER_THREAD) +
        VARIANTS.length * clients * (slices + 2) +
        20;
      const pool = new ThreadPool(await child.call<string[]>('create-threads', { count: poolSize }));
      const rotation = rotations(pool);
      const run = roundTrips(rotation);
      log(
        `SDK runner, ${clients} client(s): warm-up of each variant, then ${slices} alternating slices ` +
          `of ${sliceMs / 1000} s each (${poolSize} threads prepared)`,
      );
      for (const variant of VARIANTS) {
        await preconnect(variant, clients);
        await closedLoop(clients, warmupMs, run[variant], pid);
      }
      const windows = Object.fromEntries(VARIANTS.map((variant) => [variant, [] as Window[]])) as Record<
        Variant,
        Window[]
      >;
      for (let slice = 0; slice < slices; slice++) {
        for (let k = 0; k < VARIANTS.length; k++) {
          const variant = VARIANTS[(slice + k) % VARIANTS.length]!;
          await preconnect(variant, clients);
          windows[variant].push(await closedLoop(clients, sliceMs, run[variant], pid));
        }
      }
      const loads = Object.fromEntries(
        VARIANTS.map((variant) => {
          const parts = windows[variant];
          const latencies = parts.flatMap((part) => part.latencies);
          const seconds = durationMs / 1000;
          const serverSeconds = parts.every((part) => part.serverCpuSeconds !== null)
            ? parts.reduce((sum, part) => sum + part.serverCpuSeconds!, 0)
            : null;
          const loadSeconds = parts.reduce((sum, part) => sum + part.loadCpuSeconds, 0);
          const load: VariantLoad = {
            variant,
            clients,
            seconds,
            roundTrips: latencies.length,
            roundTripsPerSecond: latencies.length / seconds,
            roundTrip: percentiles(latencies),
            errors: parts.reduce((sum, part) => sum + part.errors, 0),
            firstError: parts.find((part) => part.firstError !== null)?.firstError ?? null,
            serverCpuCores: serverSeconds === null ? null : serverSeconds / seconds,
            loadCpuCores: loadSeconds / seconds,
            serverCpuMsPerRoundTrip:
              serverSeconds === null ? NaN : (serverSeconds * 1000) / Math.max(1, latencies.length),
            clientCpuMsPerRoundTrip: (loadSeconds * 1000) / Math.max(1, latencies.length),
          };
          return [variant, load];
        }),
      ) as Record<Variant, VariantLoad>;
      rateGuess = Math.max(rateGuess, ...VARIANTS.map((variant) => loads[variant].roundTripsPerSecond * 2));
      results.push({
        clients,
        variants: loads,
        sdkToBaseline: step(loads.handHttp, loads.sdk),
        transport: step(loads.handHttp, loads.handFetch),
        idempotencyKeys: step(loads.handFetch, loads.handFetchKeys),
        runner: step(loads.handFetchKeys, loads.sdk),
        threadsCreated: pool.ids.length,
        poolWraps: pool.wraps,
      });
    }

    // Sequential, one client, the four variants interleaved in rotating order. Client CPU is
    // read around each round trip: with one request in flight, it is that round trip's.
    log(`SDK runner: ${options.samples} sequential samples of each variant, interleaved`);
    const pool = new ThreadPool(
      await child.call<string[]>('create-threads', {
        count: Math.ceil(((options.samples + 20) * VARIANTS.length) / TURNS_PER_THREAD) + 8,
      }),
    );
    const sequentialRun = roundTrips(rotations(pool));
    for (let i = 0; i < 20; i++) for (const variant of VARIANTS) await sequentialRun[variant](0);
    const times = Object.fromEntries(
      VARIANTS.map((variant) => [variant, { latency: [] as number[], cpu: [] as number[] }]),
    ) as Record<Variant, { latency: number[]; cpu: number[] }>;
    for (let i = 0; i < options.samples; i++) {
      for (let k = 0; k < VARIANTS.length; k++) {
        const variant = VARIANTS[(i + k) % VARIANTS.length]!;
        const cpu = process.cpuUsage();
        const began = performance.now();
        await sequentialRun[variant](0);
        times[variant].latency.push(performance.now() - began);
        const used = process.cpuUsage(cpu);
        times[variant].cpu.push((used.user + used.system) / 1000);
      }
    }
    const seq = Object.fromEntries(
      VARIANTS.map((variant) => [
        variant,
        { latency: percentiles(times[variant].latency), clientCpu: percentiles(times[variant].cpu) },
      ]),
    ) as Record<Variant, SequentialVariant>;
    const median = (variant: Variant) => seq[variant].latency.p50;

    log("SDK runner: the cost of a derived results key: Web Crypto (the SDK), the SDK's own JS sha256, node:crypto");
    const keyDerivation = await measureKeyDerivation(Math.max(200, options.samples * 2));

    log('SDK runner: the runner alone, in process, over a stub fetch (no network, no server)');
    if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });
    const inProcess = await measureInProcess(reference, expected, options.inProcessRuns, 10, options.profileDir);

    const profiles: SdkRunnerResult['profiles'] = [];
    const sql: SdkRunnerResult['sql'] = [];
    if (options.profileDir) {
      const clients = Math.max(...levels);
      const profilePool = new ThreadPool(
        await child.call<string[]>('create-threads', {
          count: Math.ceil((rateGuess * 3 * (warmupMs + durationMs + 4_000)) / 1000 / TURNS_PER_THREAD) + 50,
        }),
      );
      const run = roundTrips(rotations(profilePool));
      for (const variant of ['handHttp', 'handFetch', 'sdk'] as const) {
        log(`SDK runner: profiling this process (the client side), ${LABELS[variant]}, ${clients} client(s)`);
        await preconnect(variant, clients);
        await closedLoop(clients, warmupMs, run[variant], pid);
        const session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 250 });
        await session.post('Profiler.start');
        const window = await closedLoop(clients, durationMs, run[variant], pid);
        const { profile } = await session.post('Profiler.stop');
        session.disconnect();
        const file = join(options.profileDir, `client-${variant}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profile));
        const cpuMs = (window.loadCpuSeconds * 1000) / Math.max(1, window.latencies.length);
        const summary = summariseProfile(file, 5_000);
        const groups = new Map<string, number>();
        for (const line of summary.selfTop)
          groups.set(groupOf(line.where, line.name), (groups.get(groupOf(line.where, line.name)) ?? 0) + line.selfPct);
        profiles.push({
          variant,
          file: file.startsWith(REPO_ROOT) ? file.slice(REPO_ROOT.length) : file,
          clients,
          clientCpuMsPerRoundTrip: cpuMs,
          byGroup: [...groups.entries()]
            .sort((a, b) => b[1] - a[1])
            .map(([name, pct]) => ({ name, msPerRoundTrip: (pct / 100) * cpuMs })),
        });
      }
      // Baton's SQLite work with and without keys, each in a window of its own.
      for (const variant of ['handFetch', 'handFetchKeys'] as const) {
        await preconnect(variant, clients);
        await child.call('sql-stats-start');
        const window = await closedLoop(clients, Math.min(durationMs, 4_000), run[variant], pid);
        const stats = await child.call<SqlStat[]>('sql-stats-stop');
        const n = Math.max(1, window.latencies.length);
        sql.push({
          variant,
          statementsPerRoundTrip: stats.reduce((sum, stat) => sum + stat.calls, 0) / n,
          commitsPerRoundTrip:
            stats
              .filter((stat) => stat.sql.trim().toLowerCase() === 'commit')
              .reduce((sum, stat) => sum + stat.calls, 0) / n,
          sqliteMsPerRoundTrip: stats.reduce((sum, stat) => sum + stat.totalMs, 0) / n,
          idempotencyStatements: stats
            .filter((stat) => stat.sql.includes('"idempotency_keys"'))
            .map((stat) => ({
              sql: stat.sql.length > 110 ? `${stat.sql.slice(0, 107)}...` : stat.sql,
              perRoundTrip: stat.calls / n,
              meanUs: stat.meanUs,
            })),
        });
      }
    }

    return {
      method:
        'the same seed round trip (2 POSTs) four ways against one Baton child, alternating in slices ' +
        'per level: hand-written over node:http (baseline, bench/load.ts HttpClient), hand-written ' +
        'over global fetch, the same with Idempotency-Keys, and @baton/client threads.run; ' +
        `a new thread every ${TURNS_PER_THREAD} round trips per client; every variant checks the final answer.`,
      turnsPerThread: TURNS_PER_THREAD,
      slices,
      expectedAnswer: expected,
      sdkRequests,
      levels: results,
      sequential: {
        samples: options.samples,
        variants: seq,
        sdkMinusBaselineMs: median('sdk') - median('handHttp'),
        transportMs: median('handFetch') - median('handHttp'),
        idempotencyKeysMs: median('handFetchKeys') - median('handFetch'),
        runnerMs: median('sdk') - median('handFetchKeys'),
        runnerClientCpuMs: seq.sdk.clientCpu.p50 - seq.handFetchKeys.clientCpu.p50,
      },
      keyDerivation,
      inProcess,
      profiles,
      sql,
    };
  } finally {
    http?.close();
    await server?.stop();
  }
}

export const SDK_RUNNER_PROFILE_DIR = join(BENCH_DIR, '.tmp', 'profiles');

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.env.BENCH_QUICK === '1';
  const result = await measureSdkRunner({
    levels: (process.env.BENCH_LEVELS ?? '1,10').split(',').map(Number),
    warmupMs: (quick ? 0.5 : 2) * 1000,
    durationMs: (quick ? 1.5 : 8) * 1000,
    slices: quick ? 2 : 4,
    samples: quick ? 40 : 300,
    inProcessRuns: quick ? 200 : 1000,
    profileDir: process.env.BENCH_PROFILE === '0' ? null : SDK_RUNNER_PROFILE_DIR,
    log: (message) => process.stderr.write(`[sdk-runner] ${message}\n`),
  });
  mkdirSync(join(BENCH_DIR, '.tmp'), { recursive: true });
  writeFileSync(join(BENCH_DIR, '.tmp', 'sdk-runner.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(sdkRunnerReport(result).join('\n'));
}
