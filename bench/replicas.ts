import { readdir, readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import pg from 'pg';
import { ADMIN_KEY } from '../test/helpers/test-baton.ts';
import { createTestDatabase } from '../test/helpers/postgres-database.ts';
import { startServer, type ServerChild } from './child-server.ts';
import { HttpClient, percentiles, type Percentiles } from './load.ts';
import { fmt, table } from './report.ts';
import { batonRoundTrip } from './round-trips.ts';

/**
 * The replicas phase of `npm run bench` (alone: `BENCH_ONLY=replicas`): the main round trip on
 * SQLite in one process, then on PostgreSQL with 1, 2 and 3 replicas on one database. Client i
 * talks to replica i mod n (a balancer's round robin, without a balancer's own cost). The CPU of
 * a round trip counts every replica and every PostgreSQL server process (on this machine the
 * server runs beside the bench: its work is part of what a round trip costs); commits per round
 * trip come from the database's own counter (`pg_stat_database.xact_commit`; every statement
 * outside a transaction is one); statements per round trip are counted in the servers themselves
 * (`bench/statement-counter.ts`, BEGIN and COMMIT included).
 */

const SECRETS_KEY = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
/** The servers count their SQL statements (`bench/statement-counter.ts`). */
const COUNTING = { BENCH_COUNT_STATEMENTS: '1' };

export interface ReplicasOptions {
  levels: number[];
  warmupMs: number;
  durationMs: number;
  log(message: string): void;
}

export interface ReplicasRow {
  setup: string;
  replicas: number;
  clients: number;
  roundTripsPerSecond: number;
  roundTrip: Percentiles;
  /** Server CPU (replicas and PostgreSQL) per round trip, ms. */
  cpuMsPerRoundTrip: number;
  /** PostgreSQL only. */
  commitsPerRoundTrip: number | null;
  /** SQL statements the servers sent per round trip (BEGIN and COMMIT included), counted in the servers. */
  statementsPerRoundTrip: number;
  errors: number;
}

export interface ReplicasResult {
  rows: ReplicasRow[];
  /** PostgreSQL with one replica: CPU per round trip over SQLite's, per level (target ≤ 2). */
  postgresCpuRatio: Record<number, number>;
}

export async function measureReplicas(options: ReplicasOptions): Promise<ReplicasResult> {
  const rows: ReplicasRow[] = [];
  const sqlite = await startServer('baton-server.ts', COUNTING);
  try {
    for (const clients of options.levels) {
      options.log(`replicas: SQLite, ${clients} client(s)`);
      rows.push(await measure('SQLite', [sqlite], clients, options, null));
    }
  } finally {
    await sqlite.stop();
  }
  for (const replicas of [1, 2, 3]) {
    const database = await createTestDatabase('baton_bench');
    const children: ServerChild[] = [];
    try {
      const env = { ...COUNTING, BENCH_DATABASE_URL: database.url, BATON_SECRETS_KEY: SECRETS_KEY };
      children.push(await startServer('baton-server.ts', env));
      for (let i = 1; i < replicas; i++) children.push(await startServer('baton-server.ts', env));
      for (const clients of options.levels) {
        options.log(`replicas: PostgreSQL × ${replicas}, ${clients} client(s)`);
        rows.push(await measure('PostgreSQL', children, clients, options, database.url));
      }
    } finally {
      await Promise.all(children.map((child) => child.stop()));
      await database.drop();
    }
  }
  const cpu = (setup: string, replicas: number, clients: number) =>
    rows.find((row) => row.setup === setup && row.replicas === replicas && row.clients === clients)
      ?.cpuMsPerRoundTrip ?? NaN;
  const postgresCpuRatio = Object.fromEntries(
    options.levels.map((clients) => [clients, cpu('PostgreSQL', 1, clients) / cpu('SQLite', 1, clients)]),
  );
  return { rows, postgresCpuRatio };
}

async function measure(
  setup: string,
  children: ServerChild[],
  clients: number,
  options: ReplicasOptions,
  databaseUrl: string | null,
): Promise<ReplicasRow> {
  const https = children.map((child) => new HttpClient(child.url, { authorization: `Bearer ${ADMIN_KEY}` }));
  try {
    const threads = await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        const [id] = await children[client % children.length]!.call<string[]>('create-threads', { count: 1 });
        return id!;
      }),
    );
    const latencies: number[] = [];
    let errors = 0;
    const windowStart = performance.now() + options.warmupMs;
    const windowEnd = windowStart + options.durationMs;
    let cpuStart = 0;
    let commitsStart = 0;
    let statementsStart = 0;
    const opened = new Promise<void>((resolve) =>
      setTimeout(() => {
        void Promise.all([serverCpuSeconds(children), commits(databaseUrl), statements(children)]).then(
          ([cpu, done, sent]) => {
            cpuStart = cpu;
            commitsStart = done;
            statementsStart = sent;
            resolve();
          },
        );
      }, options.warmupMs),
    );
    const loop = async (client: number) => {
      const http = https[client % https.length]!;
      while (performance.now() < windowEnd) {
        const began = performance.now();
        try {
          await batonRoundTrip(http, threads[client]!);
        } catch {
          errors += 1;
          if (errors > 100) throw new Error(`${setup}: too many errors`);
          continue;
        }
        const ended = performance.now();
        if (ended >= windowStart && ended <= windowEnd) latencies.push(ended - began);
      }
    };
    const closed = new Promise<[number, number, number]>((resolve) =>
      setTimeout(
        () => void Promise.all([serverCpuSeconds(children), commits(databaseUrl), statements(children)]).then(resolve),
        options.warmupMs + options.durationMs,
      ),
    );
    await Promise.all(Array.from({ length: clients }, (_, client) => loop(client)));
    await opened;
    const [cpuEnd, commitsEnd, statementsEnd] = await closed;
    const roundTrips = Math.max(1, latencies.length);
    return {
      setup,
      replicas: children.length,
      clients,
      roundTripsPerSecond: latencies.length / (options.durationMs / 1000),
      roundTrip: percentiles(latencies),
      cpuMsPerRoundTrip: ((cpuEnd - cpuStart) * 1000) / roundTrips,
      commitsPerRoundTrip: databaseUrl === null ? null : (commitsEnd - commitsStart) / roundTrips,
      statementsPerRoundTrip: (statementsEnd - statementsStart) / roundTrips,
      errors,
    };
  } finally {
    for (const http of https) http.close();
  }
}

/** CPU seconds used so far by the replicas and by every PostgreSQL server process. */
async function serverCpuSeconds(children: readonly ServerChild[]): Promise<number> {
  const pids = new Set(children.map((child) => child.pid));
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === 'postgres') pids.add(Number(entry));
  }
  let total = 0;
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
    if (stat === null) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return total;
}

/** SQL statements the servers have sent so far, as they count them. */
async function statements(children: readonly ServerChild[]): Promise<number> {
  const counts = await Promise.all(children.map((child) => child.call<number>('statements')));
  return counts.reduce((sum, count) => sum + count, 0);
}

async function commits(databaseUrl: string | null): Promise<number> {
  if (databaseUrl === null) return 0;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'select xact_commit as n from pg_stat_database where datname = current_database()',
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

export function replicasReport(result: ReplicasResult): string[] {
  return [
    '',
    'Replicas: the main round trip on SQLite in one process and on PostgreSQL with 1-3 replicas',
    table(
      [
        'setup',
        'replicas',
        'clients',
        'rt/s',
        'rt p50 ms',
        'rt p99 ms',
        'server CPU ms/rt',
        'server cores',
        'commits/rt',
        'statements/rt',
        'errors',
      ],
      result.rows.map((row) => [
        row.setup,
        String(row.replicas),
        String(row.clients),
        fmt(row.roundTripsPerSecond, 0),
        fmt(row.roundTrip.p50, 2),
        fmt(row.roundTrip.p99, 2),
        fmt(row.cpuMsPerRoundTrip, 2),
        fmt(serverCores(row), 2),
        row.commitsPerRoundTrip === null ? '-' : fmt(row.commitsPerRoundTrip, 1),
        fmt(row.statementsPerRoundTrip, 1),
        String(row.errors),
      ]),
    ),
    `  Bottleneck: ${bottleneck(result)}`,
    ...Object.entries(result.postgresCpuRatio).map(
      ([clients, ratio]) =>
        `  ${clients} client(s): PostgreSQL (1 replica) CPU per round trip / SQLite ${fmt(ratio, 2)}   target ≤ 2: ${ratio <= 2 ? 'met' : 'MISSED'}`,
    ),
  ];
}

/** Cores the servers kept busy: CPU per round trip times round trips per second. */
function serverCores(row: ReplicasRow): number {
  return (row.cpuMsPerRoundTrip * row.roundTripsPerSecond) / 1000;
}

/**
 * What stopped the cluster from growing with replicas: the machine's cores when the servers (with
 * the load generator beside them) kept nearly all of them busy, else the database's own latency.
 */
function bottleneck(result: ReplicasResult): string {
  const postgres = result.rows.filter((row) => row.setup === 'PostgreSQL');
  const busiest = Math.max(...postgres.map(serverCores));
  const cores = cpus().length;
  const best = postgres.reduce((a, b) => (b.roundTripsPerSecond > a.roundTripsPerSecond ? b : a), postgres[0]!);
  return busiest >= 0.7 * cores
    ? `the machine's ${cores} cores: the replicas and PostgreSQL kept ${fmt(busiest, 2)} of them busy (the load generator ` +
        `takes most of the rest), so more replicas share the same CPU; the most throughput came with ${best.replicas} ` +
        `replica(s) at ${best.clients} clients`
    : `not the CPU (at most ${fmt(busiest, 2)} of ${cores} cores busy): the database's commits and locks`;
}
