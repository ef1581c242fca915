import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_KEY } from '../test/helpers/test-baton.ts';
import { startServer } from './child-server.ts';
import { HttpClient, percentiles, runLoad, StopClient, type LoadResult, type Percentiles } from './load.ts';
import { summariseProfile, type ProfileSummary } from './profile-summary.ts';
import { fmt, gitState, loadRow, mb, table } from './report.ts';
import { batonRoundTrip, createThreadsOverHttp, echoRoundTrip, responsesRoundTrip } from './round-trips.ts';
import { measureServerTools, SERVER_TOOLS_PROFILE_DIR, serverToolsReport } from './server-tools.ts';
import { measureSdkRunner, SDK_RUNNER_PROFILE_DIR } from './sdk-runner.ts';
import { measureNoisyNeighbour, noisyNeighbourReport, type NoisyNeighbourResult } from './noisy-neighbour.ts';
import { measureReplicas, replicasReport, type ReplicasResult } from './replicas.ts';
import { measureTelemetry, telemetryReport, type TelemetryResult } from './telemetry.ts';
import { sdkRunnerReport } from './sdk-runner-report.ts';
import { measureWorkers, workersReport, type WorkersResult } from './workers.ts';
import { floorReport, measureFloor, type FloorResult } from './floor.ts';
import { measureWebhooks, webhooksReport, type WebhooksResult } from './webhooks.ts';
import { measureRetention, retentionReport, type RetentionResult } from './retention.ts';
import type { SqlStat } from './sql-stats.ts';
import { ensureCompiled } from './compiled-baton.ts';

/**
 * `npm run bench`: throughput and latency of Baton's pause/resume round trip against a bare
 * Fastify echo ceiling, turn cost against history length, heap cost of pending threads, and the
 * overhead of a server-executed tool call beside a direct call to the same API (bench/server-tools.ts),
 * the @baton/client runner's overhead beside the hand-written round trip (bench/sdk-runner.ts), and
 * how much a noisy tenant (looping jsFunction tools, hostile OpenAPI documents) slows another app
 * (bench/noisy-neighbour.ts), and tool workers' claim → submit round trips beside the direct
 * Threads round trip (bench/workers.ts), and Baton beside the floor, a hand-written server doing the
 * least work the same durable pause needs (bench/floor.ts, issue 22's targets as ratios), and what
 * webhooks cost the round trip with 0, 1 and 5 endpoints (bench/webhooks.ts, issue 20), and a
 * retention run over 100,000 idle conversations beside round trips at 10 clients (bench/retention.ts,
 * issue 21).
 * Servers run in child processes (bench/servers/*.ts); this process only generates load, so it
 * never shares an event loop with the server it measures. Writes bench/results.json.
 *
 * Environment knobs (defaults in brackets): BENCH_WARMUP_S [2], BENCH_DURATION_S [8],
 * BENCH_LEVELS [1,10,50], BENCH_HEAP_TARGET [100000], BENCH_HEAP_BUDGET_S [45],
 * BENCH_PROFILE [1] (CPU-profile Baton at 10 clients), BENCH_QUICK [0] (a short smoke run),
 * BENCH_ONLY [] (`noisy-neighbour`, `replicas`, `telemetry`, `workers`, `floor`, `webhooks` or `retention`: run that phase
 * alone and merge its figures into results.json), BENCH_RETENTION_CONVERSATIONS [100000] (idle conversations the
 * retention run removes; 5,000 with BENCH_QUICK=1), BENCH_RETENTION_DURING_S [60] (how long the clients run beside
 * the retention run, at most), BENCH_RETENTION_BATCH [the engine's] (the run's conversationBatch).
 */

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const quick = process.env.BENCH_QUICK === '1';
const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const config = {
  warmupMs: num('BENCH_WARMUP_S', quick ? 0.5 : 2) * 1000,
  durationMs: num('BENCH_DURATION_S', quick ? 1.5 : 8) * 1000,
  levels: (process.env.BENCH_LEVELS ?? '1,10,50').split(',').map(Number),
  heapTarget: num('BENCH_HEAP_TARGET', quick ? 5_000 : 100_000),
  heapBudgetSeconds: num('BENCH_HEAP_BUDGET_S', quick ? 5 : 45),
  history: quick
    ? { shortTurns: 10, shortCopies: 20, midTurns: 50, midCopies: 4, longTurns: 100, longCopies: 4, samples: 20 }
    : { shortTurns: 10, shortCopies: 200, midTurns: 100, midCopies: 20, longTurns: 1000, longCopies: 20, samples: 200 },
  profile: process.env.BENCH_PROFILE !== '0',
  /** Server-tools phase: the levels up to 10 clients, and sequential samples of each round trip. */
  serverTools: { levels: [] as number[], samples: quick ? 40 : 300 },
  /** SDK-runner phase: the same levels, alternating slices per level, sequential samples, in-process runs per block. */
  sdkRunner: {
    levels: [] as number[],
    slices: quick ? 2 : 4,
    samples: quick ? 40 : 300,
    inProcessRuns: quick ? 200 : 1000,
  },
};
{
  const upTo10 = config.levels.filter((clients) => clients <= 10);
  config.serverTools.levels = upTo10.length > 0 ? upTo10 : [Math.min(...config.levels)];
  config.sdkRunner.levels = config.serverTools.levels;
}
const TARGETS = { ratioAt10: 0.4, overheadP99Ms: 5, heapDrift: 0.1, historyRatio: 1.2, noisyNeighbourP99: 2 };
const only = process.env.BENCH_ONLY ?? '';

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

// ---- phases -------------------------------------------------------------------------------------

async function measureEcho(): Promise<LoadResult[]> {
  const server = await startServer('echo-server.ts');
  const http = new HttpClient(server.url, { authorization: `Bearer ${ADMIN_KEY}` });
  try {
    const results: LoadResult[] = [];
    const roundTrip = echoRoundTrip(http);
    for (const clients of config.levels) {
      log(`echo ceiling, ${clients} client(s)`);
      results.push(
        await runLoad({
          clients,
          warmupMs: config.warmupMs,
          durationMs: config.durationMs,
          http,
          roundTrip,
          serverPid: server.pid,
        }),
      );
    }
    return results;
  } finally {
    http.close();
    await server.stop();
  }
}

interface FreshResult extends LoadResult {
  poolSize: number;
  poolExhausted: boolean;
}

interface HistoryResult {
  shortTurns: number;
  midTurns: number;
  longTurns: number;
  samples: number;
  threads: { short: number; mid: number; long: number };
  buildSeconds: { short: number; mid: number; long: number };
  cloneSeconds: { short: number; mid: number; long: number };
  short: Percentiles;
  mid: Percentiles;
  long: Percentiles;
  /** Median at `longTurns` over median at `shortTurns`: the target figure. */
  ratioOfMedians: number;
  /** Median at `longTurns` over median at `midTurns` (both past the agent's history window). */
  ratioLongToMid: number;
}

async function measureBaton(): Promise<{
  reuse: LoadResult[];
  responses: LoadResult[];
  fresh: FreshResult[];
  history: HistoryResult;
}> {
  const server = await startServer('baton-server.ts');
  const http = new HttpClient(server.url, { authorization: `Bearer ${ADMIN_KEY}` });
  try {
    const reuse: LoadResult[] = [];
    const responses: LoadResult[] = [];
    for (const clients of config.levels) {
      log(`Baton, one thread per client (history grows), ${clients} client(s)`);
      const threads = await createThreadsOverHttp(http, clients);
      reuse.push(
        await runLoad({
          clients,
          warmupMs: config.warmupMs,
          durationMs: config.durationMs,
          http,
          roundTrip: (client) => batonRoundTrip(http, threads[client]!),
          serverPid: server.pid,
        }),
      );
      // The same round trip through the Responses face, right after, on the same server.
      log(`Baton Responses face, one response chain per client, ${clients} client(s)`);
      const chains = Array.from({ length: clients }, () => ({ last: null as string | null }));
      responses.push(
        await runLoad({
          clients,
          warmupMs: config.warmupMs,
          durationMs: config.durationMs,
          http,
          roundTrip: (client) => responsesRoundTrip(http, chains[client]!),
          serverPid: server.pid,
        }),
      );
    }

    const fresh: FreshResult[] = [];
    for (const [index, clients] of config.levels.entries()) {
      // Fresh threads run faster than grown ones: size the pool for 6× the thread-per-client rate.
      const expected =
        Math.max(reuse[index]!.roundTripsPerSecond * 6, 100) * ((config.warmupMs + config.durationMs) / 1000);
      const poolSize = Math.ceil(expected) + clients * 4 + 100;
      const pool = await server.call<string[]>('create-threads', { count: poolSize });
      log(`Baton, a fresh thread per round trip, ${clients} client(s) (${poolSize} threads prepared)`);
      let next = 0;
      let exhausted = false;
      const result = await runLoad({
        clients,
        warmupMs: config.warmupMs,
        durationMs: config.durationMs,
        http,
        roundTrip: async () => {
          const threadId = pool[next++];
          if (threadId === undefined) {
            exhausted = true;
            throw new StopClient();
          }
          await batonRoundTrip(http, threadId);
        },
        serverPid: server.pid,
      });
      fresh.push({ ...result, poolSize, poolExhausted: exhausted });
    }

    const { shortTurns, shortCopies, midTurns, midCopies, longTurns, longCopies, samples } = config.history;
    type Built = { ids: string[]; buildSeconds: number; cloneSeconds: number };
    log(
      `history: building threads of ${shortTurns}, ${midTurns} and ${longTurns} turns through the ` +
        `engine, then copying them (${shortCopies}/${midCopies}/${longCopies})`,
    );
    const short = await server.call<Built>('history-threads', { turns: shortTurns, copies: shortCopies });
    const mid = await server.call<Built>('history-threads', { turns: midTurns, copies: midCopies });
    const long = await server.call<Built>('history-threads', { turns: longTurns, copies: longCopies });
    log(`history: ${samples} sequential round trips at each length, interleaved`);
    // Warm-up on a thread that is not measured.
    const warm = await createThreadsOverHttp(http, 1);
    for (let i = 0; i < 20; i++) await batonRoundTrip(http, warm[0]!);
    const times: [number[], number[], number[]] = [[], [], []];
    const sets = [short.ids, mid.ids, long.ids];
    for (let i = 0; i < samples; i++) {
      // Each short thread is measured once, at exactly `shortTurns` prior turns; the others a few
      // times each (e.g. 1,000 → 1,000 + samples/copies prior turns). The order rotates.
      for (let k = 0; k < 3; k++) {
        const which = (i + k) % 3;
        const ids = sets[which]!;
        const began = performance.now();
        await batonRoundTrip(http, ids[i % ids.length]!);
        times[which]!.push(performance.now() - began);
      }
    }
    const [shortStats, midStats, longStats] = times.map(percentiles) as [Percentiles, Percentiles, Percentiles];
    const history: HistoryResult = {
      shortTurns,
      midTurns,
      longTurns,
      samples,
      threads: { short: short.ids.length, mid: mid.ids.length, long: long.ids.length },
      buildSeconds: { short: short.buildSeconds, mid: mid.buildSeconds, long: long.buildSeconds },
      cloneSeconds: { short: short.cloneSeconds, mid: mid.cloneSeconds, long: long.cloneSeconds },
      short: shortStats,
      mid: midStats,
      long: longStats,
      ratioOfMedians: longStats.p50 / shortStats.p50,
      ratioLongToMid: longStats.p50 / midStats.p50,
    };
    return { reuse, responses, fresh, history };
  } finally {
    http.close();
    await server.stop();
  }
}

interface ProfileRun extends ProfileSummary {
  label: string;
  file: string;
  load: LoadResult;
  /** Statements by total SQLite time in the profiled window (SQL text shortened). */
  sql: Array<SqlStat & { perRoundTrip: number }>;
  /** SQLite time (inside better-sqlite3 run/all/get) per round trip, ms. */
  sqlMsPerRoundTrip: number;
  statementsPerRoundTrip: number;
  sqlWindowRoundTripsPerSecond: number;
}

/**
 * Baton at 10 clients again, with the V8 profiler on for exactly the measured window (started
 * and stopped over IPC, after a warm-up): once on fresh threads (the fixed cost of a turn), once
 * with a thread per client (history at the window limit).
 */
async function profileBaton(): Promise<ProfileRun[]> {
  const dir = join(BENCH_DIR, '.tmp', 'profiles');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const server = await startServer('baton-server.ts');
  const http = new HttpClient(server.url, { authorization: `Bearer ${ADMIN_KEY}` });
  const clients = 10;
  const runs: ProfileRun[] = [];
  try {
    const pool = await server.call<string[]>('create-threads', { count: 4_000 });
    let next = 0;
    const fresh = async () => {
      const threadId = pool[next++];
      if (threadId === undefined) throw new StopClient();
      await batonRoundTrip(http, threadId);
    };
    const threads = await createThreadsOverHttp(http, clients);
    const perClient = (client: number) => batonRoundTrip(http, threads[client]!);
    for (const [label, roundTrip] of [
      ['fresh threads', fresh],
      ['thread per client', perClient],
    ] as const) {
      log(`profiling Baton, ${label}, ${clients} clients`);
      await runLoad({ clients, warmupMs: 0, durationMs: config.warmupMs + 2_000, http, roundTrip });
      const file = join(dir, `baton-${label.replaceAll(' ', '-')}.cpuprofile`);
      await server.call('profile-start');
      const load = await runLoad({
        clients,
        warmupMs: 0,
        durationMs: config.durationMs,
        http,
        roundTrip,
        serverPid: server.pid,
      });
      await server.call('profile-stop', { file });
      // SQL timing in a window of its own, so its wrappers do not show in the profile.
      await server.call('sql-stats-start');
      const sqlLoad = await runLoad({
        clients,
        warmupMs: 0,
        durationMs: Math.min(config.durationMs, 4_000),
        http,
        roundTrip,
      });
      const stats = await server.call<SqlStat[]>('sql-stats-stop');
      // Round trips that finished in the window (a few more ran across its edges).
      const roundTrips = Math.max(1, sqlLoad.roundTrips);
      const sql = stats.map((stat) => ({
        ...stat,
        sql: stat.sql.length > 110 ? `${stat.sql.slice(0, 107)}...` : stat.sql,
        perRoundTrip: stat.calls / roundTrips,
      }));
      runs.push({
        label,
        file: file.slice(REPO_ROOT.length),
        load,
        sql: sql.slice(0, 15),
        sqlMsPerRoundTrip: stats.reduce((sum, stat) => sum + stat.totalMs, 0) / roundTrips,
        statementsPerRoundTrip: stats.reduce((sum, stat) => sum + stat.calls, 0) / roundTrips,
        sqlWindowRoundTripsPerSecond: sqlLoad.roundTripsPerSecond,
        ...summariseProfile(file, 20),
      });
    }
  } finally {
    http.close();
    await server.stop();
  }
  return runs;
}

/** What bench/heap-probe.ts prints as its last line. */
interface HeapReport {
  target: number;
  engineBudgetSeconds: number;
  engineCreated: number;
  cloned: number;
  cloneSeconds: number;
  engineThreadsPerSecond: number;
  pendingCallsInDb: number;
  pendingThreadsInDb: number;
  samples: Array<{ label: string; pendingThreads: number; heapUsed: number; rss: number }>;
  heapRatio: number;
}

async function measureHeap(): Promise<HeapReport> {
  log(
    `heap: pending threads up to ${config.heapTarget.toLocaleString('en-US')} (engine for up to ${config.heapBudgetSeconds} s, then SQLite copies)`,
  );
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      join(BENCH_DIR, 'heap-probe.ts'),
      String(config.heapTarget),
      String(config.heapBudgetSeconds),
    ],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`heap probe exited with ${code}: ${output}`);
  return JSON.parse(output.trim().split('\n').pop()!) as HeapReport;
}

// ---- report -------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const began = performance.now();
  const git = gitState();
  const loadAtStart = loadavg();
  log(`config ${JSON.stringify(config)}`);
  const code = git
    ? `${git.commit}${git.modifiedSrcFiles ? ` + ${git.modifiedSrcFiles} modified file(s) under src/` : ''}`
    : 'unknown';
  log(`code ${code}; load average ${loadAtStart.map((v) => v.toFixed(2)).join(' ')}`);
  await ensureCompiled(log);
  const echo = await measureEcho();
  const baton = await measureBaton();
  const profiles = config.profile ? await profileBaton() : [];
  const serverTools = await measureServerTools({
    levels: config.serverTools.levels,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    samples: config.serverTools.samples,
    profileDir: config.profile ? SERVER_TOOLS_PROFILE_DIR : null,
    log,
  });
  const sdkRunner = await measureSdkRunner({
    ...config.sdkRunner,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    profileDir: config.profile ? SDK_RUNNER_PROFILE_DIR : null,
    log,
  });
  const heap = await measureHeap();
  const noisyNeighbour = await runNoisyNeighbour();
  const replicas = await runReplicas();
  const telemetry = await runTelemetry();
  const workers = await runWorkers();
  const floor = await runFloor();
  const webhooks = await runWebhooks();
  const retention = await runRetention();

  const at = (results: LoadResult[], clients: number) => results.find((result) => result.clients === clients);
  const echo10 = at(echo, 10);
  const baton10 = at(baton.reuse, 10);
  const fresh10 = at(baton.fresh, 10);
  const echo1 = at(echo, 1);
  const baton1 = at(baton.reuse, 1);
  const summary = {
    ratioAt10: echo10 && baton10 ? baton10.roundTripsPerSecond / echo10.roundTripsPerSecond : NaN,
    ratioAt10Fresh: echo10 && fresh10 ? fresh10.roundTripsPerSecond / echo10.roundTripsPerSecond : NaN,
    overheadP99MsAt10: echo10 && baton10 ? baton10.request.p99 - echo10.request.p99 : NaN,
    overheadP99MsAt1: echo1 && baton1 ? baton1.request.p99 - echo1.request.p99 : NaN,
    historyRatio: baton.history.ratioOfMedians,
    heapRatio: heap.heapRatio as number,
    /** Responses face throughput over the Threads face's, same round trip, same run, per client level. */
    responsesToThreads: Object.fromEntries(
      baton.responses.map((result) => [
        result.clients,
        result.roundTripsPerSecond / (at(baton.reuse, result.clients)?.roundTripsPerSecond ?? NaN),
      ]),
    ) as Record<number, number>,
    /** Server-tools phase, per client level: (tool turn − plain turn) p50 over the direct call's p50, and tool turn / plain turn p50. */
    serverToolOverheadToDirect: Object.fromEntries(
      serverTools.levels.map((level) => [level.clients, level.derived.overheadToDirectP50]),
    ) as Record<number, number>,
    toolTurnToPlainTurn: Object.fromEntries(
      serverTools.levels.map((level) => [level.clients, level.derived.toolToPlainP50]),
    ) as Record<number, number>,
    /** SDK-runner phase, per client level: SDK rt/s over the hand-written (node:http) rt/s, and the p50 it adds per round trip (ms). */
    sdkToHandWritten: Object.fromEntries(
      sdkRunner.levels.map((level) => [level.clients, level.sdkToBaseline.throughput]),
    ) as Record<number, number>,
    sdkAddedP50Ms: Object.fromEntries(
      sdkRunner.levels.map((level) => [level.clients, level.sdkToBaseline.addedP50Ms]),
    ) as Record<number, number>,
    /** Noisy-neighbour phase, per client level: the victim's round-trip p99 under noise over idle. */
    noisyNeighbourP99Ratio: noisyNeighbourRatios(noisyNeighbour),
    /** Replicas phase, per client level: PostgreSQL (one replica) CPU per round trip over SQLite's. */
    postgresCpuRatio: replicas.postgresCpuRatio,
    /** Telemetry phase, per client level: rt/s with metrics, and with metrics and traces, over rt/s with both off. */
    telemetryRatios: telemetryRatios(telemetry),
    /** Tool-workers phase, per worker count: claim → submit rt/s over the direct Threads round trip's. */
    workersToDirect: workers.workersToDirect,
    /** Floor phase (thread per client): Baton over the floor (rt/s at 10, p50 at 1, p99 at 10) and Baton's CPU ms per round trip. */
    floorRatios: floor.ratios.threadPerClient,
    /** Webhooks phase, per client level: rt/s with 1 and 5 endpoints over rt/s with none. */
    webhooksRatios: webhooksRatios(webhooks),
    /** Retention phase: rt/s at 10 clients during the run over before it (target ≥ 0.9), and the run's seconds. */
    retention: retentionSummary(retention),
  };
  const verdict = {
    ratioAt10: summary.ratioAt10 >= TARGETS.ratioAt10,
    overheadP99: summary.overheadP99MsAt10 < TARGETS.overheadP99Ms,
    heapFlat: Math.abs(summary.heapRatio - 1) <= TARGETS.heapDrift,
    history: summary.historyRatio <= TARGETS.historyRatio,
  };

  const headers = [
    'server',
    'clients',
    'rt/s',
    'rt p50 ms',
    'rt p99 ms',
    'req p50 ms',
    'req p99 ms',
    'server CPU',
    'load CPU',
    'errors',
  ];
  const rows = [
    ...echo.map((result) => loadRow('echo ceiling', result)),
    ...baton.reuse.map((result) => loadRow('Baton, thread per client', result)),
    ...baton.responses.map((result) => loadRow('Baton Responses, chain per client', result)),
    ...baton.fresh.map((result) =>
      loadRow(`Baton, fresh thread${result.poolExhausted ? ' (pool ran out!)' : ''}`, result),
    ),
  ];
  const h = baton.history;
  const heapRows = (
    heap.samples as Array<{ label: string; pendingThreads: number; heapUsed: number; rss: number }>
  ).map((sample) => [sample.label, sample.pendingThreads.toLocaleString('en-US'), mb(sample.heapUsed), mb(sample.rss)]);
  const check = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const report = [
    '',
    `Code ${code}; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; ` +
      `load average at start ${loadAtStart.map((v) => v.toFixed(2)).join(' ')}, ` +
      `at end ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}.`,
    `Round trip = POST seed message → tool_use → POST tool_result → final answer (echo: 2 POSTs). ` +
      `${config.warmupMs / 1000} s warm-up + ${config.durationMs / 1000} s per level. CPU in cores ` +
      `(1.00 = one core busy).`,
    table(headers, rows),
    '',
    `Baton/ceiling at 10 clients: ${fmt(summary.ratioAt10, 3)} (thread per client), ${fmt(summary.ratioAt10Fresh, 3)} ` +
      `(fresh threads)   target ≥ ${TARGETS.ratioAt10}: ${check(verdict.ratioAt10)}`,
    `Responses face / Threads face (same round trip, rt/s): ${Object.entries(summary.responsesToThreads)
      .map(([clients, ratio]) => `${fmt(ratio, 2)} at ${clients} client(s)`)
      .join(', ')}`,
    `p99 server overhead per request: ${fmt(summary.overheadP99MsAt10, 2)} ms at 10 clients, ${fmt(summary.overheadP99MsAt1, 2)} ` +
      `ms at 1 client   target < ${TARGETS.overheadP99Ms} ms (10 clients): ${check(verdict.overheadP99)}`,
    `Turn cost vs history (sequential, ${h.samples} round trips each): median ${fmt(h.short.p50, 2)} ` +
      `ms at ${h.shortTurns} prior turns, ${fmt(h.mid.p50, 2)} ms at ${h.midTurns}, ${fmt(h.long.p50, 2)} ` +
      `ms at ${h.longTurns}; ratio ${h.longTurns}/${h.shortTurns} ${fmt(h.ratioOfMedians, 2)}   target ` +
      `≤ ${TARGETS.historyRatio}: ${check(verdict.history)} (${h.longTurns}/${h.midTurns}: ${fmt(h.ratioLongToMid, 2)})`,
    `Heap with pending threads (after forced GC): ratio ${fmt(summary.heapRatio, 3)} from first ` +
      `to last sample   target within ±${TARGETS.heapDrift * 100}%: ${check(verdict.heapFlat)}`,
    table(['sample', 'pending threads', 'heapUsed', 'rss'], heapRows),
    `  engine created ${heap.engineCreated.toLocaleString('en-US')} pending threads at ${fmt(heap.engineThreadsPerSecond, 0)}/s; ` +
      `${heap.cloned.toLocaleString('en-US')} copied in SQLite in ${fmt(heap.cloneSeconds, 1)} s; ` +
      `database holds ${heap.pendingThreadsInDb.toLocaleString('en-US')} pending threads`,
  ];
  for (const profile of profiles) {
    report.push(
      '',
      `CPU profile of Baton, ${profile.label}, 10 clients (${profile.file}; ${fmt(profile.load.roundTripsPerSecond, 0)} ` +
        `rt/s under the profiler; idle ${fmt((100 * profile.idleMs) / profile.wallMs, 1)}% of wall ` +
        `time):`,
      '  by package (self time): ' +
        profile.byPackage
          .slice(0, 8)
          .map((entry) => `${entry.name} ${fmt(entry.selfPct)}%`)
          .join(', '),
      table(
        ['top self time', 'self %', 'total %', 'where'],
        profile.selfTop.slice(0, 12).map((line) => [line.name, fmt(line.selfPct), fmt(line.totalPct), line.where]),
      ),
      `  SQLite: ${fmt(profile.statementsPerRoundTrip, 1)} statements and ${fmt(profile.sqlMsPerRoundTrip, 2)} ` +
        `ms inside SQLite per round trip (${fmt((100 * profile.sqlMsPerRoundTrip * profile.sqlWindowRoundTripsPerSecond) / 1000, 0)}% ` +
        `of the window); top statements:`,
      table(
        ['statement', 'per rt', 'mean µs', 'max µs', '> 2 ms', 'total ms'],
        profile.sql
          .slice(0, 8)
          .map((stat) => [
            stat.sql.slice(0, 80),
            fmt(stat.perRoundTrip, 1),
            fmt(stat.meanUs, 0),
            fmt(stat.maxUs, 0),
            String(stat.slowCalls),
            fmt(stat.totalMs, 0),
          ]),
      ),
    );
  }
  report.push(...serverToolsReport(serverTools));
  report.push(...sdkRunnerReport(sdkRunner));
  report.push(...noisyNeighbourReport(noisyNeighbour));
  report.push(...replicasReport(replicas));
  report.push(...telemetryReport(telemetry));
  report.push(...workersReport(workers));
  report.push(...floorReport(floor));
  report.push(...webhooksReport(webhooks));
  report.push(...retentionReport(retention));
  report.push('', `Total bench time ${fmt((performance.now() - began) / 1000, 0)} s.`);
  console.log(report.join('\n'));

  const results = {
    date: new Date().toISOString(),
    machine: {
      node: process.version,
      os: `${osType()} ${release()}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(totalmem() / 1024 ** 3),
    },
    code: git,
    loadAverage: { start: loadAtStart, end: loadavg() },
    config,
    targets: TARGETS,
    summary,
    verdict,
    echo,
    batonThreadPerClient: baton.reuse,
    batonFreshThreads: baton.fresh,
    history: baton.history,
    heap,
    profiles,
    serverTools,
    sdkRunner,
    noisyNeighbour,
    replicas,
    telemetry,
    workers,
    floor,
    webhooks,
    retention,
    totalSeconds: (performance.now() - began) / 1000,
  };
  writeFileSync(join(BENCH_DIR, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  log('wrote bench/results.json');
}

function runNoisyNeighbour(): Promise<NoisyNeighbourResult> {
  return measureNoisyNeighbour({
    levels: config.serverTools.levels,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    log,
  });
}

/** PostgreSQL at 10 and 50 clients: the levels where replicas can share the load. */
function runReplicas(): Promise<ReplicasResult> {
  return measureReplicas({
    levels: config.levels.filter((clients) => clients >= 10),
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    log,
  });
}

function noisyNeighbourRatios(result: NoisyNeighbourResult): Record<number, number> {
  return Object.fromEntries(result.levels.map((level) => [level.clients, level.p99Ratio]));
}

/**
 * The telemetry phase at the levels up to 10 clients, alternating slices as the SDK-runner phase
 * does, but twice as long and in four times as many slices (1 s each): its differences are a few
 * per cent, about the noise of one 8 s window on this shared machine, and short slices spread a
 * burst of other work over all three variants.
 */
function runTelemetry(): Promise<TelemetryResult> {
  return measureTelemetry({
    levels: config.sdkRunner.levels,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs * 2,
    slices: config.sdkRunner.slices * 4,
    log,
  });
}

/** The telemetry phase with the targets its report is read against, as its entry keeps them. */
async function runTelemetryWithTargets(): Promise<TelemetryResult & { targets: { metrics: number; both: number } }> {
  return { targets: { metrics: 0.95, both: 0.85 }, ...(await runTelemetry()) };
}

function telemetryRatios(result: TelemetryResult): Record<number, { metrics: number; both: number }> {
  return Object.fromEntries(
    result.levels.map((level) => {
      const ratio = (variant: string) => level.variants.find((v) => v.variant === variant)?.ratio ?? NaN;
      return [level.clients, { metrics: ratio('metrics'), both: ratio('both') }];
    }),
  );
}

/** The tool-workers phase: 2,000 calls pending at least before each measurement (200 in a quick run). */
function runWorkers(): Promise<WorkersResult> {
  return measureWorkers({
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    minPendingCalls: quick ? 200 : 2_000,
    log,
  });
}

/** The floor phase at 1 and 10 clients (about 4 minutes; a minute with BENCH_QUICK=1). */
function runFloor(): Promise<FloorResult> {
  return measureFloor({
    warmupMs: config.warmupMs,
    durationMs: config.durationMs,
    slices: quick ? 2 : 4,
    countedRoundTrips: quick ? 20 : 200,
    pendingThreads: quick ? 1_000 : 10_000,
    starts: quick ? 1 : 3,
    profileDir: config.profile ? join(BENCH_DIR, '.tmp', 'profiles') : null,
    log,
  });
}

/**
 * The webhooks phase at the levels up to 10 clients: 0, 1 and 5 endpoints alternating in 8 slices
 * of 2 s each (2 of 1.5 s with BENCH_QUICK=1) after a warm-up each, so twice the other phases'
 * measured time per variant, as the telemetry phase has.
 */
function runWebhooks(): Promise<WebhooksResult> {
  return measureWebhooks({
    levels: config.sdkRunner.levels,
    warmupMs: config.warmupMs,
    durationMs: config.durationMs * 2,
    slices: quick ? 2 : 8,
    countedRoundTrips: quick ? 30 : 200,
    log,
  });
}

function webhooksRatios(result: WebhooksResult): Record<number, Record<number, number>> {
  return Object.fromEntries(
    result.levels.map((level) => [
      level.clients,
      Object.fromEntries(level.variants.map((variant) => [variant.endpoints, variant.ratio])),
    ]),
  );
}

/**
 * The retention phase: 100,000 old idle conversations (5,000 quick), 10 clients, before and after
 * windows of twice the duration after a warm-up of four times the duration (the server is fresh from
 * seeding: in consecutive 8 s windows it got faster for about 30 s), 60 s beside the run (10 s quick).
 */
function runRetention(): Promise<RetentionResult> {
  return measureRetention({
    conversations: num('BENCH_RETENTION_CONVERSATIONS', quick ? 5_000 : 100_000),
    recent: quick ? 100 : 1_000,
    clients: 10,
    warmupMs: Math.max(config.warmupMs, config.durationMs * 4),
    windowMs: config.durationMs * 2,
    duringMs: num('BENCH_RETENTION_DURING_S', quick ? 10 : 60) * 1000,
    conversationBatch: process.env.BENCH_RETENTION_BATCH ? Number(process.env.BENCH_RETENTION_BATCH) : undefined,
    log,
  });
}

function retentionSummary(result: RetentionResult) {
  return {
    ratioToBefore: result.ratioToBefore,
    p99RatioToBefore: result.p99RatioToBefore,
    runSeconds: result.run.seconds,
    conversations: result.run.conversations,
    perSecondUnderLoad: result.run.underLoad.perSecond,
    perSecondAlone: result.run.idle.perSecond,
    exact: result.exact,
  };
}

/**
 * A phase alone (`BENCH_ONLY=floor` and the others of `ONLY`): its figures replace its entry of
 * bench/results.json, with their own date, code and load average, and its summary figure; the
 * rest of the file, from the last full run, is kept.
 */
async function mainPhaseOnly<T extends object>(
  name: string,
  entry: string,
  measure: () => Promise<T>,
  report: (result: T) => string[],
  summarise: (result: T) => unknown,
  summaryKey: string,
): Promise<void> {
  const git = gitState();
  const loadAtStart = loadavg();
  log(`config ${JSON.stringify(config)}; ${name} phase only`);
  await ensureCompiled(log);
  const result = await measure();
  const loadAtEnd = loadavg();
  console.log(
    [
      `Code ${git ? `${git.commit}${git.modifiedSrcFiles ? ` + ${git.modifiedSrcFiles} modified file(s) under src/` : ''}` : 'unknown'}; ` +
        `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; load average at start ` +
        `${loadAtStart.map((v) => v.toFixed(2)).join(' ')}, at end ${loadAtEnd.map((v) => v.toFixed(2)).join(' ')}.`,
      ...report(result),
    ].join('\n'),
  );
  const file = join(BENCH_DIR, 'results.json');
  const results = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  results[entry] = {
    date: new Date().toISOString(),
    code: git,
    loadAverage: { start: loadAtStart, end: loadAtEnd },
    config: { warmupMs: config.warmupMs, durationMs: config.durationMs, quick },
    ...result,
  };
  const summary = (results.summary ?? {}) as Record<string, unknown>;
  summary[summaryKey] = summarise(result);
  results.summary = summary;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote the ${entry} entry of bench/results.json`);
}

const ONLY = ['noisy-neighbour', 'replicas', 'telemetry', 'workers', 'floor', 'webhooks', 'retention'];
if (only !== '' && !ONLY.includes(only))
  throw new Error(`BENCH_ONLY=${only}: the phases that run alone are ${ONLY.join(', ')}`);

(only === 'noisy-neighbour'
  ? mainPhaseOnly(
      'noisy-neighbour',
      'noisyNeighbour',
      runNoisyNeighbour,
      noisyNeighbourReport,
      noisyNeighbourRatios,
      'noisyNeighbourP99Ratio',
    )
  : only === 'replicas'
    ? mainPhaseOnly(
        'replicas',
        'replicas',
        runReplicas,
        replicasReport,
        (result) => result.postgresCpuRatio,
        'postgresCpuRatio',
      )
    : only === 'telemetry'
      ? mainPhaseOnly(
          'telemetry',
          'telemetry',
          runTelemetryWithTargets,
          telemetryReport,
          telemetryRatios,
          'telemetryRatios',
        )
      : only === 'workers'
        ? mainPhaseOnly(
            'workers',
            'workers',
            runWorkers,
            workersReport,
            (result) => result.workersToDirect,
            'workersToDirect',
          )
        : only === 'floor'
          ? mainPhaseOnly(
              'floor',
              'floor',
              runFloor,
              floorReport,
              (result) => result.ratios.threadPerClient,
              'floorRatios',
            )
          : only === 'webhooks'
            ? mainPhaseOnly('webhooks', 'webhooks', runWebhooks, webhooksReport, webhooksRatios, 'webhooksRatios')
            : only === 'retention'
              ? mainPhaseOnly('retention', 'retention', runRetention, retentionReport, retentionSummary, 'retention')
              : main()
).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
