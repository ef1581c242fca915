import { mkdtempSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { testConfig } from '../../test/helpers/test-baton.ts';
import { createThread, engineRoundTrip } from '../engine-driver.ts';
import { ThreadCloner } from '../sqlite-clone.ts';
import { compiledCreateBaton } from '../compiled-baton.ts';
import { countStatements } from '../statement-counter.ts';
import { BENCH_LIMITS, serveBenchChild } from './bench-child.ts';

/**
 * Baton with its background work, for the webhooks and retention phases (bench/webhooks.ts,
 * bench/retention.ts): the server as bench/servers/baton-server.ts runs it (createBaton, an SQLite
 * file in a fresh temp directory opened as in production, the demo agent on `scripted:auto`,
 * request limits at their maximum, no request logging, no deadline sweeper), with egress to
 * loopback allowed (`egressAllow: ['127.0.0.1/32']`, as test/webhooks does) so webhook endpoints
 * may point at the bench's receiver. The webhook delivery worker runs with its default settings,
 * as in production. A retention run is started over IPC (`engine.applyRetention()`, the function
 * the sweeper's leader runs every 15 minutes), so the bench knows when it starts and ends.
 *
 * IPC requests ({ id, cmd, ... }) → replies ({ id, result } | { id, error }):
 *   webhook-backlog {}        events not yet fanned out, and deliveries pending (in flight included)
 *   webhook-counts {}         outbox events written so far, and deliveries failed
 *   seed-idle { old, recent, oldDays, recentDays }   `old` idle conversations (one full turn each:
 *                             items and a resolved ledger entry) last changed between oldDays[0]
 *                             and oldDays[1] days ago, and `recent` ones within recentDays: one
 *                             thread built through the engine, copied in SQLite (bench/sqlite-clone.ts)
 *   snapshot {}               notes the ids of every conversation now
 *   conversations {}          how many conversations there are now (read on a second connection)
 *   retention-run { conversationBatch? }   engine.applyRetention(), timed
 *   retention-verify {}       which conversations went since `snapshot`, against the seeded ones,
 *                             and rows left behind that name no conversation
 *   loop-delay { reset }      the event loop's delay since the last reset (perf_hooks), ms
 * and the commands every bench child answers (servers/bench-child.ts).
 */

if (process.env.BENCH_COUNT_STATEMENTS === '1') countStatements();

const dir = mkdtempSync(join(tmpdir(), 'baton-bench-background-'));
const filename = join(dir, 'baton.db');
const createBaton = await compiledCreateBaton();
const baton = await createBaton(testConfig({ port: 0, limits: BENCH_LIMITS, egressAllow: ['127.0.0.1/32'] }), {
  store: { kind: 'sqlite', filename },
  sweeper: false,
  logger: false,
});
const url = await baton.listen();
/** A second connection, for the bench's own reads (never inside the server's transactions). */
const reader = new Database(filename, { readonly: true });
reader.pragma('busy_timeout = 10000');

const DAY_MS = 86_400_000;
const seeded = { old: new Set<string>(), recent: new Set<string>() };
let snapshot: Set<string> | null = null;

type Request =
  | { id: number; cmd: 'webhook-backlog' }
  | { id: number; cmd: 'webhook-counts' }
  | {
      id: number;
      cmd: 'seed-idle';
      old: number;
      recent: number;
      oldDays: [number, number];
      recentDays: [number, number];
    }
  | { id: number; cmd: 'snapshot' }
  | { id: number; cmd: 'conversations' }
  | { id: number; cmd: 'retention-run'; conversationBatch?: number }
  | { id: number; cmd: 'retention-verify' }
  | { id: number; cmd: 'loop-delay'; reset?: boolean };

// How long callbacks wait for the event loop (10 ms resolution is the default; 1 ms here).
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();

const count = (sql: string): number => (reader.prepare(sql).get() as { n: number }).n;
const conversationIds = (): Set<string> =>
  new Set((reader.prepare('select id from conversations').all() as Array<{ id: string }>).map((row) => row.id));

/**
 * `copies` conversations like one full engine-built turn, last changed spread evenly between
 * `days[0]` and `days[1]` days ago (each its own time: the retention scan orders by it, as real
 * data would have it). Every other timestamp of the copies is the oldest end of the span.
 */
async function seed(
  copies: number,
  days: [number, number],
): Promise<{ ids: string[]; rowsEach: Record<string, number> }> {
  const template = await createThread(baton);
  await engineRoundTrip(baton, template);
  const writer = new Database(filename);
  writer.pragma('busy_timeout = 10000');
  const now = Date.now();
  const oldest = new Date(now - days[1] * DAY_MS).toISOString();
  const rowsEach: Record<string, number> = {};
  try {
    writer.transaction(() => {
      writer
        .prepare('update conversations set created_at = ?, updated_at = ? where id = ?')
        .run(oldest, oldest, template);
      writer
        .prepare(
          `update turns set created_at = @old, updated_at = @old,
             completed_at = case when completed_at is null then null else @old end
           where conversation_id = @id`,
        )
        .run({ old: oldest, id: template });
      writer.prepare('update items set created_at = ? where conversation_id = ?').run(oldest, template);
      writer
        .prepare(
          `update ledger_entries set created_at = @old, updated_at = @old,
             submitted_at = case when submitted_at is null then null else @old end,
             deadline_at = case when deadline_at is null then null else @old end
           where conversation_id = @id`,
        )
        .run({ old: oldest, id: template });
    })();
    for (const table of ['turns', 'items', 'ledger_entries'])
      rowsEach[table] = (
        writer.prepare(`select count(*) as n from ${table} where conversation_id = ?`).get(template) as { n: number }
      ).n;
    rowsEach.conversations = 1;
  } finally {
    writer.close();
  }
  const cloner = new ThreadCloner(filename, template);
  let ids: string[];
  try {
    ids = [template, ...cloner.clone(copies - 1)];
  } finally {
    cloner.close();
  }
  const stamper = new Database(filename);
  stamper.pragma('busy_timeout = 10000');
  try {
    const stamp = stamper.prepare('update conversations set updated_at = ? where id = ?');
    const span = (days[1] - days[0]) * DAY_MS;
    stamper.transaction(() => {
      ids.forEach((id, index) => {
        stamp.run(new Date(now - days[1] * DAY_MS + (span * (index + 0.5)) / ids.length).toISOString(), id);
      });
    })();
    // The copies went through the WAL: fold it into the database, as a long-running server would have.
    stamper.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    stamper.close();
  }
  return { ids, rowsEach };
}

async function handle(request: Request): Promise<unknown> {
  switch (request.cmd) {
    case 'webhook-backlog':
      // Two small index ranges: the bench polls this after every slice until both are 0.
      return {
        unfanned: count('select count(*) as n from webhook_events where fanned_out = 0'),
        pending: count("select count(*) as n from webhook_deliveries where status = 'pending'"),
      };
    case 'webhook-counts':
      return {
        events: count('select count(*) as n from webhook_events'),
        failed: count("select count(*) as n from webhook_deliveries where status = 'failed'"),
      };
    case 'seed-idle': {
      const started = performance.now();
      const old = await seed(request.old, request.oldDays);
      const recent = request.recent > 0 ? await seed(request.recent, request.recentDays) : null;
      for (const id of old.ids) seeded.old.add(id);
      for (const id of recent?.ids ?? []) seeded.recent.add(id);
      return {
        seconds: (performance.now() - started) / 1000,
        rowsEach: old.rowsEach,
        conversations: count('select count(*) as n from conversations'),
        databaseBytes:
          (reader.pragma('page_count', { simple: true }) as number) *
          (reader.pragma('page_size', { simple: true }) as number),
      };
    }
    case 'conversations':
      return count('select count(*) as n from conversations');
    case 'snapshot':
      snapshot = conversationIds();
      return snapshot.size;
    case 'retention-run': {
      const started = performance.now();
      const run = await baton.engine.applyRetention(
        request.conversationBatch === undefined ? {} : { conversationBatch: request.conversationBatch },
      );
      return { seconds: (performance.now() - started) / 1000, run };
    }
    case 'retention-verify': {
      if (!snapshot) throw new Error('retention-verify without snapshot');
      const now = conversationIds();
      const removed = [...snapshot].filter((id) => !now.has(id));
      const orphans = (table: string) =>
        count(`select count(*) as n from ${table} where conversation_id not in (select id from conversations)`);
      return {
        before: snapshot.size,
        after: now.size,
        removed: removed.length,
        removedSeededOld: removed.filter((id) => seeded.old.has(id)).length,
        removedOther: removed.filter((id) => !seeded.old.has(id)).length,
        seededOld: seeded.old.size,
        seededOldLeft: [...seeded.old].filter((id) => now.has(id)).length,
        seededRecent: seeded.recent.size,
        seededRecentLeft: [...seeded.recent].filter((id) => now.has(id)).length,
        orphans: { turns: orphans('turns'), items: orphans('items'), ledger_entries: orphans('ledger_entries') },
      };
    }
    case 'loop-delay': {
      const ms = (ns: number) => ns / 1e6;
      const result = {
        p50: ms(loopDelay.percentile(50)),
        p99: ms(loopDelay.percentile(99)),
        max: ms(loopDelay.max),
        mean: ms(loopDelay.mean),
      };
      if (request.reset) loopDelay.reset();
      return result;
    }
  }
}

serveBenchChild<Request>(url, handle, async () => {
  reader.close();
  await baton.close();
  rmSync(dir, { recursive: true, force: true });
});
