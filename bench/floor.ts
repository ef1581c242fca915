import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { DEMO_AGENT } from '../src/server/config.ts';
import { ADMIN_KEY } from '../test/helpers/test-baton.ts';
import { freePort } from '../test/reliability/baton-process.ts';
import { startServer, type ServerChild } from './child-server.ts';
import { ensureCompiled } from './compiled-baton.ts';
import { HttpClient, percentiles, type Percentiles } from './load.ts';
import { profileAreas, type AreaShare } from './profile-areas.ts';
import { summariseProfile } from './profile-summary.ts';
import { fmt, mb, table } from './report.ts';
import { batonRoundTrip, createThreadsOverHttp } from './round-trips.ts';
import {
  AUTH,
  BENCH_DIR,
  closedLoop,
  REPO_ROOT,
  resultBody,
  SEED_BODY,
  type Window,
} from './sdk-runner-round-trips.ts';
import type { SqlStat } from './sql-stats.ts';

/**
 * The floor phase of `npm run bench` (alone: `BENCH_ONLY=floor`), issue 22: Baton beside the
 * floor (bench/servers/floor-server.ts: the least work the same durable pause needs, hand-written
 * on Fastify and better-sqlite3), in the same run, with the same client code and the same three
 * requests (create a thread; user text → `tool_use`; `tool_result` → the answer).
 *
 * 1. **Load**, at 1 and 10 clients, two round trips: `thread per client` (user text → `tool_use`
 *    → `tool_result` → answer on one thread per client, its history growing, as the bench's
 *    headline) and `new thread` (create a thread, then the same two messages: the three requests).
 *    At each level and round trip both servers get a warm-up, then take turns in short slices,
 *    in rotating order, so drift and noise on a shared machine hit both alike. Server CPU from
 *    /proc at each slice's edges.
 * 2. **Counted work**: statements and commits per request and per round trip, counted in the
 *    servers (bench/statement-counter.ts, BEGIN and COMMIT included) over sequential round trips
 *    on children of their own, so the counting wrappers stay out of the load's CPU; per kind of
 *    statement, with the time inside SQLite (bench/sql-stats.ts); and the pages appended to the WAL.
 * 2b. **SQLite bound**: the time inside SQLite per round trip of each server, one at a time (and
 *    of Baton with the indexes that serve only listings dropped) and at 10 clients: what the
 *    latency at 1 client and the throughput at 10 could be at best, were Baton's work outside
 *    SQLite as cheap as the floor's, or free.
 * 3. **CPU profiles** of both at 10 clients, each round trip, by function and by area
 *    (bench/profile-areas.ts), unless BENCH_PROFILE=0.
 * 4. **Start-up and memory**: Baton as `npm start` runs it (the real CLI, SQLite) and the floor's
 *    script, each spawned a few times: milliseconds from the spawn to the first answered
 *    `POST /v1/threads`, the server process's RSS then, and after 10,000 pending threads (made
 *    over HTTP: a thread, then the message that pauses it on `request_approval`).
 */

export type FloorServer = 'floor' | 'baton';
export type FloorRoundTrip = 'threadPerClient' | 'newThread';
export const FLOOR_SERVERS: readonly FloorServer[] = ['floor', 'baton'];
export const FLOOR_ROUND_TRIPS: readonly FloorRoundTrip[] = ['threadPerClient', 'newThread'];
const SERVER_LABELS: Record<FloorServer, string> = { floor: 'floor', baton: 'Baton' };
const ROUND_TRIP_LABELS: Record<FloorRoundTrip, string> = {
  threadPerClient: 'thread per client (2 requests)',
  newThread: 'new thread (3 requests)',
};
/** Issue 22's targets, as ratios to the floor in the same run (and two absolute figures). */
export const FLOOR_TARGETS = {
  throughputAt10: 0.5,
  cpuMsPerRoundTrip: 0.8,
  p50At1: 1.5,
  p99At10: 2,
  statementsPerRoundTrip: 15,
  commitsPerRequest: 1,
} as const;
const FLOOR_SCRIPT = join(BENCH_DIR, 'servers', 'floor-server.ts');

export interface FloorOptions {
  warmupMs: number;
  durationMs: number;
  slices: number;
  /** Sequential round trips for the counted work (statements, commits, kinds). */
  countedRoundTrips: number;
  pendingThreads: number;
  /** Spawns of each server for the start-up time (the first on a fresh database). */
  starts: number;
  /** Where the CPU profiles go; null: none. */
  profileDir: string | null;
  log(message: string): void;
}

export interface FloorLoad {
  server: FloorServer;
  roundTripKind: FloorRoundTrip;
  clients: number;
  seconds: number;
  roundTrips: number;
  roundTripsPerSecond: number;
  roundTrip: Percentiles;
  serverCpuMsPerRoundTrip: number | null;
  serverCpuCores: number | null;
  loadCpuCores: number;
  errors: number;
  firstError: string | null;
}

export interface Work {
  statements: number;
  commits: number;
}

export interface FloorCounts {
  roundTrips: number;
  /** Per request, averaged over `roundTrips` of each. */
  create: Work;
  message: Work;
  toolResult: Work;
  /** The two messages of a round trip (without the thread's creation). */
  perRoundTrip: Work;
  /** Statements per round trip by kind (`select conversations`, `commit`...), in a window of their own. */
  kinds: Array<{ kind: string; perRoundTrip: number; meanUs: number }>;
  /** Every distinct statement of the round trip (text shortened), by time per round trip. */
  statements: Array<{
    sql: string;
    perRoundTrip: number;
    meanUs: number;
    maxUs: number;
    /** Calls over 2 ms (a commit that ran a WAL checkpoint, say). */
    slowCalls: number;
    msPerRoundTrip: number;
  }>;
  /** Time inside SQLite per round trip (bench/sql-stats.ts), ms. */
  sqliteMsPerRoundTrip: number;
  /** Pages (4 KB) appended to the WAL per thread created and per round trip on a new thread. */
  walPages: { create: number; perRoundTrip: number };
}

/**
 * SQLite's own time per round trip (bench/sql-stats.ts), against what the targets leave.
 * Sequential: round trips one at a time on a thread of a fresh child, checkpoints where the load
 * has them (Baton: its thread; the floor: SQLite's automatic ones in its commits); unlike the
 * counted work's, which counts WAL pages with the checkpoints in the writer's commits. Under load:
 * 10 clients, thread per client, on the load's children, every statement timed.
 */
export interface SqliteBound {
  roundTrips: number;
  sequential: { floorMs: number; batonMs: number; batonWithoutListingIndexesMs: number };
  atTenClients: { floorMs: number; batonMs: number };
  /**
   * The least Baton's p50 at 1 client can be, over the floor's: its SQLite time one at a time
   * plus what the floor spends outside SQLite (the same HTTP requests on the same Fastify), over
   * the floor's p50 (target ≤ 1.5).
   */
  p50At1Bound: number;
  p50At1BoundWithoutListingIndexes: number;
  /**
   * The most Baton's rt/s at 10 clients can be of the floor's, were SQLite all its CPU: the floor's
   * CPU per round trip over Baton's SQLite time under the same load (target ≥ 0.5).
   */
  throughputBound: number;
  /**
   * CPU per round trip outside SQLite that Baton may spend at 10 clients to reach the throughput
   * target (the floor's CPU over the target, less Baton's SQLite time), and what the floor spends
   * there on the same HTTP requests.
   */
  outsideSqliteBudgetMs: number;
  floorOutsideSqliteMs: number;
}

export interface FloorProfile {
  server: FloorServer;
  roundTripKind: FloorRoundTrip;
  file: string;
  roundTripsPerSecond: number;
  /** Busy (non-idle) profile time per round trip, ms, each sample capped (bench/profile-areas.ts). */
  busyMsPerRoundTrip: number;
  idlePct: number;
  areasSelf: AreaShare[];
  areasInclusive: AreaShare[];
  /** Functions by self time (capped samples). */
  functions: Array<{ name: string; area: string; pct: number }>;
}

export interface FloorStartup {
  server: FloorServer;
  command: string;
  /** Spawn → first answered `POST /v1/threads`, ms, in order (the first on a fresh database). */
  startsMs: number[];
  medianStartMs: number;
  rssAfterStart: number;
  rssAfterPending: number;
  pendingThreads: number;
  fillSeconds: number;
}

export interface FloorRatios {
  /** Baton's round trips per second at 10 clients over the floor's (target ≥ 0.5). */
  throughputAt10: number;
  /** Baton's server CPU per round trip at 10 clients, ms (target ≤ 0.8). */
  batonCpuMsPerRoundTrip: number;
  /** Baton's CPU per round trip over the floor's, at 10 clients. */
  cpuToFloor: number;
  /** Baton's round-trip p50 at 1 client over the floor's (target ≤ 1.5). */
  p50At1: number;
  /** Baton's round-trip p99 at 10 clients over the floor's (target ≤ 2). */
  p99At10: number;
}

export interface FloorResult {
  levels: number[];
  warmupMs: number;
  slices: number;
  sliceMs: number;
  loads: FloorLoad[];
  counts: Record<FloorServer, FloorCounts>;
  sqliteBound: SqliteBound;
  profiles: FloorProfile[];
  startup: FloorStartup[];
  targets: typeof FLOOR_TARGETS;
  /** Per round trip kind. */
  ratios: Record<FloorRoundTrip, FloorRatios>;
  /** The targets, on the thread-per-client round trip and the counted work. */
  verdict: Record<keyof typeof FLOOR_TARGETS, boolean>;
}

const LEVELS = [1, 10];

export async function measureFloor(options: FloorOptions): Promise<FloorResult> {
  const { log } = options;
  const sliceMs = options.durationMs / options.slices;
  const loads: FloorLoad[] = [];
  const profiles: FloorProfile[] = [];
  const children: Partial<Record<FloorServer, ServerChild>> = {};
  const https: Partial<Record<FloorServer, HttpClient>> = {};
  const loadSqlite: Record<FloorServer, number> = { floor: NaN, baton: NaN };
  try {
    children.floor = await startServer('floor-server.ts');
    children.baton = await startServer('baton-server.ts');
    const child = (server: FloorServer) => children[server]!;
    for (const server of FLOOR_SERVERS)
      https[server] = new HttpClient(child(server).url, { authorization: `Bearer ${ADMIN_KEY}` });
    const http = (server: FloorServer) => https[server]!;
    const threads = {} as Record<FloorServer, string[]>;
    for (const server of FLOOR_SERVERS)
      threads[server] = await createThreadsOverHttp(http(server), Math.max(...LEVELS));
    const roundTrip =
      (server: FloorServer, kind: FloorRoundTrip) =>
      async (client: number): Promise<void> => {
        if (kind === 'threadPerClient') return batonRoundTrip(http(server), threads[server][client]!);
        const [thread] = await createThreadsOverHttp(http(server), 1);
        return batonRoundTrip(http(server), thread!);
      };
    const run = async (server: FloorServer, kind: FloorRoundTrip, clients: number, ms: number) => {
      await Promise.all(Array.from({ length: clients }, () => http(server).get('/healthz')));
      return closedLoop(clients, ms, roundTrip(server, kind), child(server).pid);
    };

    for (const kind of FLOOR_ROUND_TRIPS) {
      for (const clients of LEVELS) {
        log(
          `floor phase, ${ROUND_TRIP_LABELS[kind]}, ${clients} client(s): warm-up of each, then ` +
            `${options.slices} alternating slices of ${sliceMs / 1000} s`,
        );
        for (const server of FLOOR_SERVERS) await run(server, kind, clients, options.warmupMs);
        const windows: Record<FloorServer, Window[]> = { floor: [], baton: [] };
        for (let slice = 0; slice < options.slices; slice++) {
          for (let k = 0; k < FLOOR_SERVERS.length; k++) {
            const server = FLOOR_SERVERS[(slice + k) % FLOOR_SERVERS.length]!;
            windows[server].push(await run(server, kind, clients, sliceMs));
          }
        }
        for (const server of FLOOR_SERVERS) loads.push(summarise(server, kind, clients, windows[server], sliceMs));
      }
    }

    for (const server of FLOOR_SERVERS) {
      log(`floor phase: SQLite's time per round trip of ${SERVER_LABELS[server]} at 10 clients`);
      await run(server, 'threadPerClient', 10, options.warmupMs);
      await child(server).call('sql-stats-start');
      const window = await run(server, 'threadPerClient', 10, sliceMs);
      const stats = await child(server).call<SqlStat[]>('sql-stats-stop');
      loadSqlite[server] = stats.reduce((sum, stat) => sum + stat.totalMs, 0) / Math.max(1, window.latencies.length);
    }

    if (options.profileDir !== null) {
      mkdirSync(options.profileDir, { recursive: true });
      for (const [kind, server] of FLOOR_ROUND_TRIPS.flatMap((kind) =>
        FLOOR_SERVERS.map((server) => [kind, server] as const),
      )) {
        log(`floor phase: CPU profile of ${SERVER_LABELS[server]}, ${ROUND_TRIP_LABELS[kind]}, 10 clients`);
        await run(server, kind, 10, options.warmupMs);
        const file = join(options.profileDir, `floor-phase-${server}-${kind}.cpuprofile`);
        await child(server).call('profile-start');
        const window = await run(server, kind, 10, options.durationMs);
        await child(server).call('profile-stop', { file });
        const summary = summariseProfile(file, 1);
        const areas = profileAreas(file);
        const roundTrips = Math.max(1, window.latencies.length);
        profiles.push({
          server,
          roundTripKind: kind,
          file: file.slice(REPO_ROOT.length),
          roundTripsPerSecond: window.latencies.length / (options.durationMs / 1000),
          busyMsPerRoundTrip: areas.busyMs / roundTrips,
          idlePct: (100 * summary.idleMs) / summary.wallMs,
          areasSelf: areas.self,
          areasInclusive: areas.inclusive,
          functions: areas.functions,
        });
      }
    }
  } finally {
    for (const client of Object.values(https)) client.close();
    await Promise.all(Object.values(children).map((child) => child.stop()));
  }

  const counts = {} as Record<FloorServer, FloorCounts>;
  for (const server of FLOOR_SERVERS) {
    log(
      `floor phase: counting ${SERVER_LABELS[server]}'s statements and commits (${options.countedRoundTrips} round trips)`,
    );
    counts[server] = await countWork(server, options.countedRoundTrips);
  }

  log(`floor phase: SQLite's time per round trip of each server (${options.countedRoundTrips} round trips)`);
  const sqliteBound = boundOf(loads, loadSqlite, await sequentialSqlite(options.countedRoundTrips));

  const startup: FloorStartup[] = [];
  for (const server of FLOOR_SERVERS) {
    log(
      `floor phase: start-up of ${SERVER_LABELS[server]} (${options.starts} spawns), then ` +
        `${options.pendingThreads.toLocaleString('en-US')} pending threads`,
    );
    startup.push(await measureStartup(server, options));
  }

  const ratios = Object.fromEntries(FLOOR_ROUND_TRIPS.map((kind) => [kind, ratiosOf(loads, kind)])) as Record<
    FloorRoundTrip,
    FloorRatios
  >;
  const main = ratios.threadPerClient;
  const baton = counts.baton;
  const verdict = {
    throughputAt10: main.throughputAt10 >= FLOOR_TARGETS.throughputAt10,
    cpuMsPerRoundTrip: main.batonCpuMsPerRoundTrip <= FLOOR_TARGETS.cpuMsPerRoundTrip,
    p50At1: main.p50At1 <= FLOOR_TARGETS.p50At1,
    p99At10: main.p99At10 <= FLOOR_TARGETS.p99At10,
    statementsPerRoundTrip: baton.perRoundTrip.statements <= FLOOR_TARGETS.statementsPerRoundTrip,
    commitsPerRequest:
      Math.max(baton.create.commits, baton.message.commits, baton.toolResult.commits) <=
      FLOOR_TARGETS.commitsPerRequest,
  };
  return {
    levels: LEVELS,
    warmupMs: options.warmupMs,
    slices: options.slices,
    sliceMs,
    loads,
    counts,
    sqliteBound,
    profiles,
    startup,
    targets: FLOOR_TARGETS,
    ratios,
    verdict,
  };
}

function summarise(
  server: FloorServer,
  roundTripKind: FloorRoundTrip,
  clients: number,
  windows: readonly Window[],
  sliceMs: number,
): FloorLoad {
  const seconds = (windows.length * sliceMs) / 1000;
  const latencies = windows.flatMap((window) => window.latencies);
  const cpu = windows.every((window) => window.serverCpuSeconds !== null)
    ? windows.reduce((sum, window) => sum + window.serverCpuSeconds!, 0)
    : null;
  return {
    server,
    roundTripKind,
    clients,
    seconds,
    roundTrips: latencies.length,
    roundTripsPerSecond: latencies.length / seconds,
    roundTrip: percentiles(latencies),
    serverCpuMsPerRoundTrip: cpu === null || latencies.length === 0 ? null : (cpu * 1000) / latencies.length,
    serverCpuCores: cpu === null ? null : cpu / seconds,
    loadCpuCores: windows.reduce((sum, window) => sum + window.loadCpuSeconds, 0) / seconds,
    errors: windows.reduce((sum, window) => sum + window.errors, 0),
    firstError: windows.find((window) => window.firstError !== null)?.firstError ?? null,
  };
}

function ratiosOf(loads: readonly FloorLoad[], kind: FloorRoundTrip): FloorRatios {
  const at = (server: FloorServer, clients: number) =>
    loads.find((load) => load.server === server && load.roundTripKind === kind && load.clients === clients);
  const floor1 = at('floor', 1);
  const baton1 = at('baton', 1);
  const floor10 = at('floor', 10);
  const baton10 = at('baton', 10);
  const ratio = (a: number | null | undefined, b: number | null | undefined) =>
    a === null || a === undefined || b === null || b === undefined || b === 0 ? NaN : a / b;
  return {
    throughputAt10: ratio(baton10?.roundTripsPerSecond, floor10?.roundTripsPerSecond),
    batonCpuMsPerRoundTrip: baton10?.serverCpuMsPerRoundTrip ?? NaN,
    cpuToFloor: ratio(baton10?.serverCpuMsPerRoundTrip, floor10?.serverCpuMsPerRoundTrip),
    p50At1: ratio(baton1?.roundTrip.p50, floor1?.roundTrip.p50),
    p99At10: ratio(baton10?.roundTrip.p99, floor10?.roundTrip.p99),
  };
}

// ---- counted work --------------------------------------------------------------------------------

/**
 * A fresh child with the statement counter on: `roundTrips` threads created one by one, then on
 * one of them `roundTrips` round trips one request at a time, the counters read between requests
 * (nothing else runs, so each difference is that request's work); then as many round trips again
 * with the per-statement timing on, for the statements by kind; then the pages appended to the
 * WAL by 10 new threads and by a round trip on each.
 */
async function countWork(server: FloorServer, roundTrips: number): Promise<FloorCounts> {
  const child = await startServer(server === 'floor' ? 'floor-server.ts' : 'baton-server.ts', {
    BENCH_COUNT_STATEMENTS: '1',
  });
  const http = new HttpClient(child.url, { authorization: `Bearer ${ADMIN_KEY}` });
  try {
    const read = async (): Promise<Work> => ({
      statements: await child.call<number>('statements'),
      commits: await child.call<number>('commits'),
    });
    const totals = { create: zero(), message: zero(), toolResult: zero() };
    const add = (into: Work, from: Work, to: Work) => {
      into.statements += to.statements - from.statements;
      into.commits += to.commits - from.commits;
    };
    // A warm-up, uncounted: the first requests prepare statements and fill caches.
    const [warm] = await createThreadsOverHttp(http, 1);
    for (let i = 0; i < 20; i++) await batonRoundTrip(http, warm!);
    let thread = '';
    for (let i = 0; i < roundTrips; i++) {
      const before = await read();
      thread = (await createThreadsOverHttp(http, 1))[0]!;
      add(totals.create, before, await read());
    }
    const path = `/v1/threads/${thread}/messages`;
    for (let i = 0; i < roundTrips; i++) {
      const before = await read();
      const paused = await http.post(path, SEED_BODY);
      const callId = JSON.parse(paused.text).choices?.[0]?.message?.tool_calls?.[0]?.id;
      if (paused.status !== 200 || typeof callId !== 'string')
        throw new Error(`${server}: expected tool_use, got ${paused.status}: ${paused.text.slice(0, 300)}`);
      const between = await read();
      add(totals.message, before, between);
      const answered = await http.post(path, resultBody(callId));
      if (answered.status !== 200)
        throw new Error(`${server}: tool_result answered ${answered.status}: ${answered.text.slice(0, 300)}`);
      add(totals.toolResult, between, await read());
    }
    const per = (work: Work): Work => ({
      statements: work.statements / roundTrips,
      commits: work.commits / roundTrips,
    });

    await child.call('sql-stats-start');
    for (let i = 0; i < roundTrips; i++) await batonRoundTrip(http, thread);
    const stats = await child.call<SqlStat[]>('sql-stats-stop');
    const kinds = new Map<string, { calls: number; totalMs: number }>();
    for (const stat of stats) {
      const kind = statementKind(stat.sql);
      const entry = kinds.get(kind) ?? { calls: 0, totalMs: 0 };
      entry.calls += stat.calls;
      entry.totalMs += stat.totalMs;
      kinds.set(kind, entry);
    }
    // Pages written: 10 threads, then a round trip on each (well under SQLite's auto-checkpoint at 1,000).
    const walThreads: string[] = [];
    await child.call('wal-frames', { reset: true });
    for (let i = 0; i < WAL_SAMPLE; i++) walThreads.push((await createThreadsOverHttp(http, 1))[0]!);
    const createPages = await child.call<number>('wal-frames');
    await child.call('wal-frames', { reset: true });
    for (const walThread of walThreads) await batonRoundTrip(http, walThread);
    const roundTripPages = await child.call<number>('wal-frames');
    const message = per(totals.message);
    const toolResult = per(totals.toolResult);
    return {
      roundTrips,
      create: per(totals.create),
      message,
      toolResult,
      perRoundTrip: {
        statements: message.statements + toolResult.statements,
        commits: message.commits + toolResult.commits,
      },
      kinds: [...kinds.entries()]
        .map(([kind, entry]) => ({
          kind,
          perRoundTrip: entry.calls / roundTrips,
          meanUs: (1000 * entry.totalMs) / entry.calls,
        }))
        .sort((a, b) => b.perRoundTrip - a.perRoundTrip || a.kind.localeCompare(b.kind)),
      statements: stats
        .map((stat) => ({
          sql: stat.sql.length > 160 ? `${stat.sql.slice(0, 157)}...` : stat.sql,
          perRoundTrip: stat.calls / roundTrips,
          meanUs: stat.meanUs,
          maxUs: stat.maxUs,
          slowCalls: stat.slowCalls,
          msPerRoundTrip: stat.totalMs / roundTrips,
        }))
        .sort((a, b) => b.msPerRoundTrip - a.msPerRoundTrip),
      sqliteMsPerRoundTrip: stats.reduce((sum, stat) => sum + stat.totalMs, 0) / roundTrips,
      walPages: { create: createPages / WAL_SAMPLE, perRoundTrip: roundTripPages / WAL_SAMPLE },
    };
  } finally {
    http.close();
    await child.stop();
  }
}

const zero = (): Work => ({ statements: 0, commits: 0 });
const WAL_SAMPLE = 10;

/** Round trips on the measured thread before the clock: its history reaches Baton's window (200 items). */
const BOUND_WARM_ROUND_TRIPS = 60;

/** SQLite's time per round trip, one at a time: the floor, Baton, and Baton without the listing indexes. */
async function sequentialSqlite(roundTrips: number): Promise<SqliteBound['sequential'] & { roundTrips: number }> {
  const sqliteMs = async (script: string, env: Record<string, string> = {}): Promise<number> => {
    const child = await startServer(script, env);
    const http = new HttpClient(child.url, { authorization: `Bearer ${ADMIN_KEY}` });
    try {
      const [thread] = await createThreadsOverHttp(http, 1);
      for (let i = 0; i < BOUND_WARM_ROUND_TRIPS; i++) await batonRoundTrip(http, thread!);
      await child.call('sql-stats-start');
      for (let i = 0; i < roundTrips; i++) await batonRoundTrip(http, thread!);
      const stats = await child.call<SqlStat[]>('sql-stats-stop');
      return stats.reduce((sum, stat) => sum + stat.totalMs, 0) / roundTrips;
    } finally {
      http.close();
      await child.stop();
    }
  };
  return {
    roundTrips,
    floorMs: await sqliteMs('floor-server.ts'),
    batonMs: await sqliteMs('baton-server.ts'),
    batonWithoutListingIndexesMs: await sqliteMs('baton-server.ts', { BENCH_WITHOUT_LISTING_INDEXES: '1' }),
  };
}

function boundOf(
  loads: readonly FloorLoad[],
  atTenClients: Record<FloorServer, number>,
  sequential: SqliteBound['sequential'] & { roundTrips: number },
): SqliteBound {
  const floorAt = (clients: number) =>
    loads.find(
      (load) => load.server === 'floor' && load.roundTripKind === 'threadPerClient' && load.clients === clients,
    );
  const floorP50 = floorAt(1)?.roundTrip.p50 ?? NaN;
  // What the floor's round trip spends outside SQLite: Baton answers the same requests on the same stack.
  const floorOutsideSqlite = Math.max(0, floorP50 - sequential.floorMs);
  const { roundTrips, ...times } = sequential;
  const floorCpuAt10 = floorAt(10)?.serverCpuMsPerRoundTrip ?? NaN;
  return {
    roundTrips,
    sequential: times,
    atTenClients: { floorMs: atTenClients.floor, batonMs: atTenClients.baton },
    p50At1Bound: (sequential.batonMs + floorOutsideSqlite) / floorP50,
    p50At1BoundWithoutListingIndexes: (sequential.batonWithoutListingIndexesMs + floorOutsideSqlite) / floorP50,
    throughputBound: floorCpuAt10 / atTenClients.baton,
    outsideSqliteBudgetMs: floorCpuAt10 / FLOOR_TARGETS.throughputAt10 - atTenClients.baton,
    floorOutsideSqliteMs: floorCpuAt10 - atTenClients.floor,
  };
}

/** `select conversations`, `insert items`, `begin`, `commit`...: the verb and the first table. */
export function statementKind(sql: string): string {
  const text = sql.trim().toLowerCase().replace(/\s+/g, ' ');
  const name = '"?([a-z_0-9]+)"?';
  const patterns: Array<[RegExp, string]> = [
    [/^(begin|commit|rollback|end|savepoint|release)\b/, ''],
    [new RegExp(`^insert (?:or \\w+ )?into ${name}`), 'insert'],
    [new RegExp(`^update ${name}`), 'update'],
    [new RegExp(`^delete from ${name}`), 'delete'],
    [new RegExp(`^(?:with .*? )?select .*? from ${name}`), 'select'],
  ];
  for (const [pattern, verb] of patterns) {
    const match = pattern.exec(text);
    if (match) return verb === '' ? match[1]! : `${verb} ${match[1]}`;
  }
  return text.slice(0, 40);
}

// ---- start-up and memory -------------------------------------------------------------------------

/**
 * Baton: `npm start` (whatever package.json's start script runs) with a config file that has the
 * demo agent and request limits at their maximum, on a data directory of its own (the first start
 * makes the database; later ones reopen it). The floor: its script, as the load's children run it,
 * but without IPC. The clock runs from the spawn to the first `POST /v1/threads` answered 200
 * (tried every 5 ms); the RSS is the server process's own (the deepest of the spawned processes:
 * not npm's, nor its shell's).
 */
async function measureStartup(server: FloorServer, options: FloorOptions): Promise<FloorStartup> {
  const dir = mkdtempSync(join(tmpdir(), `baton-floor-startup-${server}-`));
  const configFile = join(dir, 'baton.yaml');
  writeFileSync(
    configFile,
    stringifyYaml({
      agents: [DEMO_AGENT],
      limits: {
        requests_per_minute_per_app: 1_000_000,
        requests_per_minute_total: 1_000_000,
        turns_per_app: 10_000,
        turns_total: 10_000,
      },
    }),
  );
  const startsMs: number[] = [];
  let rssAfterStart = NaN;
  let rssAfterPending = NaN;
  let fillSeconds = NaN;
  if (server === 'baton') await ensureCompiled((message) => options.log(`floor phase: ${message}`));
  const command =
    server === 'baton' ? 'npm start (dist/, compiled)' : `node --import tsx ${FLOOR_SCRIPT.slice(REPO_ROOT.length)}`;
  try {
    for (let start = 0; start < options.starts; start++) {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
      delete env.NODE_OPTIONS;
      delete env.BENCH_COUNT_STATEMENTS;
      if (server === 'baton') {
        Object.assign(env, {
          HOST: '127.0.0.1',
          BATON_DATA_DIR: join(dir, 'data'),
          BATON_ADMIN_KEY: ADMIN_KEY,
          BATON_CONFIG: configFile,
          LOG_LEVEL: 'warn',
        });
        delete env.DATABASE_URL;
      }
      const began = performance.now();
      const spawned =
        server === 'baton'
          ? spawn('npm', ['start', '--silent'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
          : spawn(process.execPath, ['--import', 'tsx', FLOOR_SCRIPT], {
              cwd: REPO_ROOT,
              env,
              stdio: ['ignore', 'ignore', 'pipe'],
            });
      let stderr = '';
      spawned.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4_000)));
      const exited = new Promise<void>((resolve) => spawned.once('exit', () => resolve()));
      try {
        await firstAnswer(port, spawned, () => stderr);
        startsMs.push(performance.now() - began);
        if (start < options.starts - 1) continue;
        // The last start: its memory, before and after the pending threads.
        const pid = serverPid(spawned.pid!);
        rssAfterStart = rssOf(pid);
        const filled = performance.now();
        await makePendingThreads(`http://127.0.0.1:${port}`, options.pendingThreads);
        fillSeconds = (performance.now() - filled) / 1000;
        rssAfterPending = rssOf(pid);
      } finally {
        await stopTree(spawned, exited);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const sorted = [...startsMs].sort((a, b) => a - b);
  return {
    server,
    command,
    startsMs,
    medianStartMs: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    rssAfterStart,
    rssAfterPending,
    pendingThreads: options.pendingThreads,
    fillSeconds,
  };
}

/** Resolves at the first `POST /v1/threads` answered 200; fails if the process exits or 60 s pass. */
async function firstAnswer(port: number, spawned: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = performance.now() + 60_000;
  const body = JSON.stringify({ agent: 'refund-desk' });
  for (;;) {
    if (spawned.exitCode !== null || spawned.signalCode !== null)
      throw new Error(`the server exited (${spawned.exitCode ?? spawned.signalCode}) before it answered:\n${stderr()}`);
    const status = await new Promise<number>((resolve) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/threads',
          method: 'POST',
          agent: false,
          timeout: 2_000,
          headers: {
            authorization: AUTH,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.on('timeout', () => req.destroy());
      req.end(body);
    });
    if (status === 200) return;
    if (performance.now() > deadline) throw new Error(`no answer within 60 s (last status ${status}):\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** `count` threads, each paused on `request_approval` by its first message, 10 at a time. */
async function makePendingThreads(url: string, count: number): Promise<void> {
  const http = new HttpClient(url, { authorization: AUTH });
  try {
    let next = 0;
    const lane = async () => {
      while (next < count) {
        next += 1;
        const [thread] = await createThreadsOverHttp(http, 1);
        const paused = await http.post(`/v1/threads/${thread}/messages`, SEED_BODY);
        if (paused.status !== 200 || JSON.parse(paused.text).choices?.[0]?.finish_reason !== 'tool_use')
          throw new Error(`expected tool_use, got ${paused.status}: ${paused.text.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: 10 }, lane));
  } finally {
    http.close();
  }
}

/** The processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * The server among the spawned processes: the deepest `node` (npm → sh → node; not the esbuild
 * service that tsx runs beside it, whose memory is its own).
 */
function serverPid(pid: number): number {
  let found = pid;
  const walk = (current: number) => {
    try {
      if (readFileSync(`/proc/${current}/comm`, 'utf8').trim() === 'node') found = current;
    } catch {
      return;
    }
    for (const next of childrenOf(current)) walk(next);
  };
  walk(pid);
  return found;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  return kb ? Number(kb[1]) * 1024 : NaN;
}

/** SIGTERM to the server process (its parents, npm and the shell, then end), and to what was spawned after 10 s. */
async function stopTree(spawned: ChildProcess, exited: Promise<void>): Promise<void> {
  if (spawned.exitCode !== null || spawned.signalCode !== null) return;
  try {
    process.kill(serverPid(spawned.pid!), 'SIGTERM');
  } catch {
    // Already gone.
  }
  const late = setTimeout(() => spawned.kill('SIGTERM'), 10_000);
  const later = setTimeout(() => spawned.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(late);
  clearTimeout(later);
}

// ---- report --------------------------------------------------------------------------------------

export function floorReport(result: FloorResult): string[] {
  const check = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const loadRows = result.loads.map((load) => [
    `${SERVER_LABELS[load.server]}, ${ROUND_TRIP_LABELS[load.roundTripKind]}`,
    String(load.clients),
    fmt(load.roundTripsPerSecond, 0),
    fmt(load.roundTrip.p50, 2),
    fmt(load.roundTrip.p99, 2),
    load.serverCpuMsPerRoundTrip === null ? 'n/a' : fmt(load.serverCpuMsPerRoundTrip, 2),
    load.serverCpuCores === null ? 'n/a' : fmt(load.serverCpuCores, 2),
    fmt(load.loadCpuCores, 2),
    String(load.errors),
  ]);
  const main = result.ratios.threadPerClient;
  const fresh = result.ratios.newThread;
  const { floor, baton } = result.counts;
  const work = (w: Work) => `${fmt(w.statements, 1)} / ${fmt(w.commits, 2)}`;
  const bound = result.sqliteBound;
  const lines = [
    '',
    `Floor phase: Baton beside the floor (bench/servers/floor-server.ts), same client, same requests; ` +
      `${result.warmupMs / 1000} s warm-up each, then ${result.slices} alternating slices of ${result.sliceMs / 1000} s. ` +
      `CPU ms/rt: the server's CPU over the round trips; load cores: the load generator's.`,
    table(
      [
        'server, round trip',
        'clients',
        'rt/s',
        'rt p50 ms',
        'rt p99 ms',
        'CPU ms/rt',
        'server cores',
        'load cores',
        'errors',
      ],
      loadRows,
    ),
    `  Targets (thread per client): Baton rt/s / floor's at 10 clients ${fmt(main.throughputAt10, 3)}   target ≥ ` +
      `${result.targets.throughputAt10}: ${check(result.verdict.throughputAt10)}`,
    `    Baton CPU per round trip at 10 clients ${fmt(main.batonCpuMsPerRoundTrip, 2)} ms (${fmt(main.cpuToFloor, 1)}× the ` +
      `floor's)   target ≤ ${result.targets.cpuMsPerRoundTrip} ms: ${check(result.verdict.cpuMsPerRoundTrip)}`,
    `    p50 at 1 client ${fmt(main.p50At1, 2)}× the floor's   target ≤ ${result.targets.p50At1}: ${check(result.verdict.p50At1)}; ` +
      `p99 at 10 clients ${fmt(main.p99At10, 2)}× the floor's   target ≤ ${result.targets.p99At10}: ${check(result.verdict.p99At10)}`,
    `  New thread per round trip (3 requests): rt/s ratio at 10 ${fmt(fresh.throughputAt10, 3)}, Baton CPU ` +
      `${fmt(fresh.batonCpuMsPerRoundTrip, 2)} ms/rt (${fmt(fresh.cpuToFloor, 1)}× the floor's), p50 at 1 ` +
      `${fmt(fresh.p50At1, 2)}×, p99 at 10 ${fmt(fresh.p99At10, 2)}×`,
    '',
    `Counted work (statements / commits; ${baton.roundTrips} sequential requests of each, BEGIN and COMMIT counted):`,
    table(
      [
        'server',
        'create a thread',
        'user text → tool_use',
        'tool_result → answer',
        'round trip (2 messages)',
        'SQLite ms/rt',
        'WAL pages: create / rt',
      ],
      (['floor', 'baton'] as const).map((server) => {
        const counts = result.counts[server];
        return [
          SERVER_LABELS[server],
          work(counts.create),
          work(counts.message),
          work(counts.toolResult),
          work(counts.perRoundTrip),
          fmt(counts.sqliteMsPerRoundTrip, 3),
          `${fmt(counts.walPages.create, 1)} / ${fmt(counts.walPages.perRoundTrip, 1)}`,
        ];
      }),
    ),
    `  Baton: ${fmt(baton.perRoundTrip.statements, 1)} statements per round trip   target ≤ ` +
      `${result.targets.statementsPerRoundTrip}: ${check(result.verdict.statementsPerRoundTrip)}; at most ` +
      `${fmt(Math.max(baton.create.commits, baton.message.commits, baton.toolResult.commits), 2)} commits per request   ` +
      `target ≤ ${result.targets.commitsPerRequest}: ${check(result.verdict.commitsPerRequest)} ` +
      `(floor: ${fmt(floor.perRoundTrip.statements, 1)} statements, ${fmt(floor.perRoundTrip.commits, 2)} commits per round trip)`,
    `  Baton's statements per round trip, by kind: ` +
      baton.kinds.map((kind) => `${kind.kind} ${fmt(kind.perRoundTrip, 1)}`).join(', '),
    `  Baton's statements by time inside SQLite (sequential round trips, one client):`,
    table(
      ['statement', 'per rt', 'mean µs', 'max µs', '> 2 ms', 'ms/rt'],
      baton.statements
        .slice(0, 8)
        .map((stat) => [
          stat.sql.slice(0, 90),
          fmt(stat.perRoundTrip, 2),
          fmt(stat.meanUs, 0),
          fmt(stat.maxUs, 0),
          String(stat.slowCalls),
          fmt(stat.msPerRoundTrip, 3),
        ]),
    ),
    '',
    `SQLite bound (time inside SQLite per round trip; one at a time: ${result.sqliteBound.roundTrips} round trips on ` +
      `a thread of a fresh child after ${BOUND_WARM_ROUND_TRIPS}, checkpoints as in the load; at 10 clients: the ` +
      `load's children, thread per client):`,
    `  one at a time: floor ${fmt(bound.sequential.floorMs, 3)} ms, Baton ${fmt(bound.sequential.batonMs, 3)} ms, ` +
      `Baton without the indexes that serve only listings ${fmt(bound.sequential.batonWithoutListingIndexesMs, 3)} ms; ` +
      `at 10 clients: floor ${fmt(bound.atTenClients.floorMs, 3)} ms, Baton ${fmt(bound.atTenClients.batonMs, 3)} ms`,
    `  Baton's p50 at 1 client is at least ${fmt(bound.p50At1Bound, 2)}× the floor's ` +
      `(${fmt(bound.p50At1BoundWithoutListingIndexes, 2)}× without those indexes): its SQLite time plus the floor's ` +
      `time outside SQLite (target ≤ ${result.targets.p50At1})`,
    `  Were SQLite all of Baton's CPU at 10 clients, its rt/s would be at most ${fmt(bound.throughputBound, 2)} of the ` +
      `floor's (target ≥ ${result.targets.throughputAt10}); reaching the target leaves Baton ` +
      `${fmt(bound.outsideSqliteBudgetMs, 3)} ms of CPU per round trip outside SQLite, where the floor spends ` +
      `${fmt(bound.floorOutsideSqliteMs, 3)} ms on the same HTTP requests`,
    '',
    'Start-up (spawn → first answered POST /v1/threads; the first start makes the database) and RSS:',
    table(
      ['server', 'command', 'starts ms', 'median ms', 'RSS after start', `RSS, pending threads`, 'fill s'],
      result.startup.map((entry) => [
        SERVER_LABELS[entry.server],
        entry.command,
        entry.startsMs.map((ms) => fmt(ms, 0)).join(', '),
        fmt(entry.medianStartMs, 0),
        mb(entry.rssAfterStart),
        `${mb(entry.rssAfterPending)} (${entry.pendingThreads.toLocaleString('en-US')})`,
        fmt(entry.fillSeconds, 1),
      ]),
    ),
  ];
  for (const profile of result.profiles) {
    // Each area's share of the CPU per round trip measured without the profiler (same server, 10 clients).
    const cpuMs =
      result.loads.find(
        (load) => load.server === profile.server && load.roundTripKind === profile.roundTripKind && load.clients === 10,
      )?.serverCpuMsPerRoundTrip ?? NaN;
    lines.push(
      '',
      `CPU profile of ${profile.server === 'floor' ? 'the floor' : 'Baton'}, ${ROUND_TRIP_LABELS[profile.roundTripKind]}, ` +
        `10 clients (${profile.file}; ` +
        `${fmt(profile.roundTripsPerSecond, 0)} rt/s under the profiler, ${fmt(profile.busyMsPerRoundTrip, 2)} ms busy ` +
        `per round trip, idle ${fmt(profile.idlePct, 1)}%):`,
      table(
        ['area', 'self %', 'self ms/rt', 'inclusive %'],
        profile.areasSelf
          .slice(0, 16)
          .map((share) => [
            share.area,
            fmt(share.pct),
            fmt((share.pct / 100) * cpuMs, 3),
            fmt(profile.areasInclusive.find((entry) => entry.area === share.area)?.pct ?? NaN),
          ]),
      ),
      table(
        ['top self time', 'self %', 'self ms/rt'],
        profile.functions
          .slice(0, 15)
          .map((fn) => [fn.name.slice(0, 110), fmt(fn.pct), fmt((fn.pct / 100) * cpuMs, 3)]),
      ),
    );
  }
  return lines;
}
