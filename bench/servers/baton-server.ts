import { mkdtempSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../../test/helpers/test-baton.ts';
import { NOISY_PROGRAM, NOISY_PROGRAM_NAME } from '../noisy-neighbour-program.ts';
import { SERVER_TOOLS_PROGRAM, SERVER_TOOLS_PROGRAM_NAME } from '../server-tools-program.ts';
import { createThread, engineRoundTrip } from '../engine-driver.ts';
import { ThreadCloner } from '../sqlite-clone.ts';
import { compiledCreateBaton } from '../compiled-baton.ts';
import { countStatements } from '../statement-counter.ts';
import { BENCH_LIMITS, serveBenchChild } from './bench-child.ts';

/**
 * Baton as benchmarked: the real server (createBaton → Fastify, engine, scripted:auto demo agent)
 * on an SQLite file in a fresh temp directory, opened exactly as in production (WAL,
 * synchronous=NORMAL, busy_timeout), no request logging, no deadline sweeper. Controlled over
 * IPC by bench/run.ts, which never shares this process's event loop.
 *
 * With BENCH_SERVER_TOOLS=1 (the server-tools phase) the config also allows egress to loopback
 * (`egressAllow: ['127.0.0.1/32']`) and defines the scripted program `bench-tools`
 * (bench/server-tools-program.ts); the parent then creates the OpenAPI tool and the agent over
 * HTTP. With BENCH_NOISY=1 (the noisy-neighbour phase) it defines the scripted program
 * `bench-noisy` (bench/noisy-neighbour-program.ts), which calls a looping jsFunction. With
 * BENCH_DATABASE_URL (the replicas phase) it runs on that PostgreSQL database instead of SQLite
 * (`history-threads` and `sql-stats-*` are SQLite-only). With BENCH_METRICS_TOKEN and
 * BENCH_OTLP_TRACES_URL (the telemetry phase) it serves /metrics to that token and exports traces to
 * that URL. With BENCH_WITHOUT_LISTING_INDEXES=1 (the floor phase's SQLite bound) the indexes that
 * serve only listings, feeds and sweeps are dropped once the store is open. Nothing else differs.
 *
 * IPC requests ({ id, cmd, ... }) → replies ({ id, result } | { id, error }):
 *   create-threads { count }            fresh idle threads, made through the engine
 *   history-threads { turns, copies }   one thread given `turns` full round trips through the
 *                                       engine, then copied in SQLite: `copies` threads in all
 *   memory {}                           process.memoryUsage()
 *   wal-frames { reset }                pages in the SQLite WAL now (reset: checkpointed and
 *                                       truncated first), read on a second connection
 * and the commands every bench child answers (profiles, SQL statistics and counts: bench-child.ts).
 */

const dir = mkdtempSync(join(tmpdir(), 'baton-bench-'));
const filename = join(dir, 'baton.db');
const serverTools =
  process.env.BENCH_SERVER_TOOLS === '1'
    ? { egressAllow: ['127.0.0.1/32'], scripted: { [SERVER_TOOLS_PROGRAM_NAME]: SERVER_TOOLS_PROGRAM } }
    : {};
const noisy = process.env.BENCH_NOISY === '1' ? { scripted: { [NOISY_PROGRAM_NAME]: NOISY_PROGRAM } } : {};
// BENCH_DATABASE_URL (the replicas phase): PostgreSQL, several of these children on one database.
const databaseUrl = process.env.BENCH_DATABASE_URL;
// BENCH_COUNT_STATEMENTS=1 (the replicas and floor phases): every SQL statement is counted (IPC
// `statements`), and every SQLite commit (IPC `commits`).
if (process.env.BENCH_COUNT_STATEMENTS === '1') countStatements();
// The telemetry phase: BENCH_METRICS_TOKEN serves /metrics on the API port to that token;
// BENCH_OTLP_TRACES_URL exports traces there (OTLP/HTTP, protobuf), as OTEL_EXPORTER_OTLP_ENDPOINT would.
const telemetry = {
  metrics: process.env.BENCH_METRICS_TOKEN ? { token: process.env.BENCH_METRICS_TOKEN, listen: null } : null,
  tracing: process.env.BENCH_OTLP_TRACES_URL
    ? { url: process.env.BENCH_OTLP_TRACES_URL, protocol: 'http/protobuf' as const }
    : null,
};
const createBaton = await compiledCreateBaton();
const baton = await createBaton(testConfig({ port: 0, limits: BENCH_LIMITS, telemetry, ...serverTools, ...noisy }), {
  // Counting WAL pages needs a WAL that no checkpoint restarts between two looks (`wal-frames`).
  store: databaseUrl
    ? { kind: 'postgres', connectionString: databaseUrl }
    : { kind: 'sqlite', filename, checkpoints: process.env.BENCH_COUNT_STATEMENTS === '1' ? 'writer' : 'thread' },
  sweeper: false,
  logger: false,
});
const url = await baton.listen();

/**
 * The secondary indexes a thread's round trip writes but never reads: every list, feed and sweep
 * of conversations, turns, items and ledger rows. Kept: the items' `(conversation_id, seq)` (the
 * history window) and the ledger's `turn_id` (the paused turn's calls), and the ids' own.
 */
const LISTING_INDEXES = [
  'conversations_app_created_idx',
  'conversations_app_updated_idx',
  'turns_status_updated_idx',
  'turns_conversation_idx',
  'items_turn_seq_idx',
  'items_group_idx',
  'ledger_entries_app_state_created_idx',
  'ledger_entries_app_created_idx',
  'ledger_entries_app_updated_idx',
  'ledger_entries_conversation_state_idx',
];

function dropListingIndexes(file: string): void {
  const connection = new Database(file);
  try {
    // `drop index` without `if exists`: a renamed index fails here instead of being measured as kept.
    for (const index of LISTING_INDEXES) connection.exec(`drop index "${index}"`);
  } finally {
    connection.close();
  }
}

type Request =
  | { id: number; cmd: 'create-threads'; count: number }
  | { id: number; cmd: 'history-threads'; turns: number; copies: number }
  | { id: number; cmd: 'memory' }
  | { id: number; cmd: 'wal-frames'; reset?: boolean };

async function handle(request: Request): Promise<unknown> {
  switch (request.cmd) {
    case 'create-threads': {
      const ids: string[] = [];
      for (let i = 0; i < request.count; i++) ids.push(await createThread(baton));
      return ids;
    }
    case 'history-threads': {
      const started = performance.now();
      const template = await createThread(baton);
      for (let i = 0; i < request.turns; i++) await engineRoundTrip(baton, template);
      const built = performance.now();
      const cloner = new ThreadCloner(filename, template);
      try {
        const ids = [template, ...cloner.clone(request.copies - 1)];
        return { ids, buildSeconds: (built - started) / 1000, cloneSeconds: (performance.now() - built) / 1000 };
      } finally {
        cloner.close();
      }
    }
    case 'memory':
      return process.memoryUsage();
    case 'wal-frames': {
      const reader = new Database(filename);
      try {
        if (request.reset) reader.pragma('wal_checkpoint(TRUNCATE)');
        return (reader.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log;
      } finally {
        reader.close();
      }
    }
  }
}

// BENCH_WITHOUT_LISTING_INDEXES=1 (the floor phase's SQLite bound): the indexes that only serve
// listings, feeds and sweeps go before the child reports ready.
if (process.env.BENCH_WITHOUT_LISTING_INDEXES === '1' && !databaseUrl) dropListingIndexes(filename);
serveBenchChild<Request>(url, handle, async () => {
  await baton.close();
  rmSync(dir, { recursive: true, force: true });
});
