import type { Kysely, Selectable } from 'kysely';
import { addCounts, type AuditEventRecord } from '../../domain/lifecycle.ts';
import type { AppDeletion, AppPurgeBatch, AppPurgeFinish, AppPurgeProgress, AppTombstone } from '../store.ts';
import { atomically } from './atomically.ts';
import type { AppsTable, Database } from './database-schema.ts';
import { fromJsonText, toJsonText } from './json-text.ts';
import { createLifecycleRepo } from './lifecycle-repo.ts';

type Db = Kysely<Database>;

/** One table of an app's rows: how to delete a bounded batch of them, and whether any is left. */
interface PurgeTable {
  /** The table, as the audit event's counts name it. */
  name: keyof Database;
  /** Deletes at most `limit` rows of the app; returns how many went. */
  deleteSome(tx: Db, appId: string, limit: number): Promise<number>;
  hasRows(tx: Db, appId: string): Promise<boolean>;
}

function removed(result: { numDeletedRows?: bigint } | undefined): number {
  return Number(result?.numDeletedRows ?? 0n);
}

/** The app's conversations (by the conversations_app_created index). */
function conversationsOf(tx: Db, appId: string) {
  return tx.selectFrom('conversations').select('id').where('app_id', '=', appId);
}

/** Tables keyed by a unique `id` whose rows carry `app_id`. */
type ByApp =
  | 'webhook_deliveries'
  | 'webhook_events'
  | 'webhook_endpoints'
  | 'api_keys'
  | 'server_call_claims'
  | 'ledger_entries'
  | 'conversations'
  | 'agents';

/** Tables keyed by a unique `id` reached through the app's conversations (they have no `app_id` index, or no `app_id`). */
type ByConversation = 'queued_inputs' | 'responses' | 'items' | 'turns';

function byApp(name: ByApp): PurgeTable {
  const rows = (tx: Db, appId: string) => tx.selectFrom(name).select('id').where('app_id', '=', appId);
  return {
    name,
    deleteSome: async (tx, appId, limit) =>
      removed(await tx.deleteFrom(name).where('id', 'in', rows(tx, appId).limit(limit)).executeTakeFirst()),
    hasRows: async (tx, appId) => (await rows(tx, appId).limit(1).executeTakeFirst()) !== undefined,
  };
}

function byConversation(name: ByConversation): PurgeTable {
  const rows = (tx: Db, appId: string) =>
    tx.selectFrom(name).select('id').where('conversation_id', 'in', conversationsOf(tx, appId));
  return {
    name,
    deleteSome: async (tx, appId, limit) =>
      removed(await tx.deleteFrom(name).where('id', 'in', rows(tx, appId).limit(limit)).executeTakeFirst()),
    hasRows: async (tx, appId) => (await rows(tx, appId).limit(1).executeTakeFirst()) !== undefined,
  };
}

/** Tables whose key is (`app_id`, `column`). */
function byAppKey(name: 'ces_sessions' | 'secrets'): PurgeTable {
  const rows = (tx: Db, appId: string) => tx.selectFrom(name).select('id').where('app_id', '=', appId);
  return {
    name,
    deleteSome: async (tx, appId, limit) =>
      removed(
        await tx
          .deleteFrom(name)
          .where('app_id', '=', appId)
          .where('id', 'in', rows(tx, appId).limit(limit))
          .executeTakeFirst(),
      ),
    hasRows: async (tx, appId) => (await rows(tx, appId).limit(1).executeTakeFirst()) !== undefined,
  };
}

const idempotencyKeys: PurgeTable = {
  name: 'idempotency_keys',
  deleteSome: async (tx, appId, limit) =>
    removed(
      await tx
        .deleteFrom('idempotency_keys')
        .where('app_id', '=', appId)
        .where('key', 'in', tx.selectFrom('idempotency_keys').select('key').where('app_id', '=', appId).limit(limit))
        .executeTakeFirst(),
    ),
  hasRows: async (tx, appId) =>
    (await tx.selectFrom('idempotency_keys').select('key').where('app_id', '=', appId).limit(1).executeTakeFirst()) !==
    undefined,
};

/** The links of the app's keys to the conversations their responses named (by the primary key's `app_id` prefix). */
const idempotencyKeyConversations: PurgeTable = {
  name: 'idempotency_key_conversations',
  deleteSome: async (tx, appId, limit) =>
    removed(
      await tx
        .deleteFrom('idempotency_key_conversations')
        .where('app_id', '=', appId)
        .where((eb) =>
          eb(
            eb.refTuple('key', 'conversation_id'),
            'in',
            eb
              .selectFrom('idempotency_key_conversations')
              .select(['key', 'conversation_id'])
              .where('app_id', '=', appId)
              .limit(limit)
              .$asTuple('key', 'conversation_id'),
          ),
        )
        .executeTakeFirst(),
    ),
  hasRows: async (tx, appId) =>
    (await tx
      .selectFrom('idempotency_key_conversations')
      .select('key')
      .where('app_id', '=', appId)
      .limit(1)
      .executeTakeFirst()) !== undefined,
};

const appResources: PurgeTable = {
  name: 'app_resources',
  deleteSome: async (tx, appId, limit) =>
    removed(
      await tx
        .deleteFrom('app_resources')
        .where('app_id', '=', appId)
        .where((eb) =>
          eb(
            eb.refTuple('collection', 'id'),
            'in',
            eb
              .selectFrom('app_resources')
              .select(['collection', 'id'])
              .where('app_id', '=', appId)
              .limit(limit)
              .$asTuple('collection', 'id'),
          ),
        )
        .executeTakeFirst(),
    ),
  hasRows: async (tx, appId) =>
    (await tx.selectFrom('app_resources').select('id').where('app_id', '=', appId).limit(1).executeTakeFirst()) !==
    undefined,
};

/**
 * Agent versions have no `app_id`: they are the versions of the app's agents, and of deleted
 * agents its conversations still name (a deleted agent's versions stay while its turns may resume).
 */
function versionsOf(tx: Db, appId: string) {
  return tx
    .selectFrom('agent_versions')
    .select(['agent_id', 'version'])
    .where((eb) =>
      eb.or([
        eb('agent_id', 'in', eb.selectFrom('agents').select('id').where('app_id', '=', appId)),
        eb('agent_id', 'in', eb.selectFrom('conversations').select('agent_id').where('app_id', '=', appId)),
      ]),
    );
}

const agentVersions: PurgeTable = {
  name: 'agent_versions',
  deleteSome: async (tx, appId, limit) =>
    removed(
      await tx
        .deleteFrom('agent_versions')
        .where((eb) =>
          eb(
            eb.refTuple('agent_id', 'version'),
            'in',
            versionsOf(tx, appId).limit(limit).$asTuple('agent_id', 'version'),
          ),
        )
        .executeTakeFirst(),
    ),
  hasRows: async (tx, appId) => (await versionsOf(tx, appId).limit(1).executeTakeFirst()) !== undefined,
};

/**
 * Every table holding rows of an app, in the order the purge empties them. What makes work goes
 * first (webhook sends, keys, running server calls, queued input, pending calls), then children
 * before their parents: foreign keys are checked at each batch's commit, so a batch must never
 * leave a row whose parent is gone. `apps` itself and `audit_events` (which outlives the app) are
 * not here. test/lifecycle/app-purge.test.ts fails when a table of the database is missing.
 */
export const APP_PURGE_PLAN: readonly PurgeTable[] = [
  byApp('webhook_deliveries'),
  byApp('webhook_events'),
  byApp('webhook_endpoints'),
  byApp('api_keys'),
  byApp('server_call_claims'),
  byConversation('queued_inputs'),
  byApp('ledger_entries'),
  byAppKey('ces_sessions'),
  byConversation('responses'),
  byConversation('items'),
  byConversation('turns'),
  idempotencyKeyConversations,
  idempotencyKeys,
  // Before conversations and agents: the versions to delete are found through them.
  agentVersions,
  byApp('conversations'),
  byApp('agents'),
  appResources,
  byAppKey('secrets'),
];

/** The tables the purge empties, in its order. */
export const APP_PURGE_TABLES: readonly string[] = APP_PURGE_PLAN.map((table) => table.name);

/** The name a tombstoned app holds until its row goes: not a valid app name, so it never blocks one. */
export function tombstoneName(id: string): string {
  return `deleted:${id}`;
}

function toTombstone(row: Selectable<AppsTable>): AppTombstone {
  return {
    id: row.id,
    name: row.deleted_name ?? row.name,
    project: row.project,
    location: row.location,
    deletedAt: row.deleted_at ?? row.updated_at ?? row.created_at,
    deletedBy: row.deleted_by,
    progress: row.purge_progress === null ? null : fromJsonText<AppPurgeProgress>(row.purge_progress),
  };
}

/**
 * Locks a tombstoned app's row for the rest of the transaction (a no-op update: on PostgreSQL a
 * row lock, on SQLite the write lock is already held) and reads it. Purges of one app running at
 * once (a request's and a sweep's) so take turns, batch by batch, and each adds exactly what it
 * deleted to the progress it read after the other committed. Undefined for a live app: its rows
 * are never touched.
 */
async function lockTombstone(tx: Db, appId: string): Promise<Selectable<AppsTable> | undefined> {
  return tx
    .updateTable('apps')
    .set((eb) => ({ purge_progress: eb.ref('purge_progress') }))
    .where('id', '=', appId)
    .where('deleted_at', 'is not', null)
    .returningAll()
    .executeTakeFirst();
}

/** Marks a live app deleted, in one transaction with its `deletion.audit` event; false when no live app has this id. */
export async function tombstoneApp(db: Db, id: string, deletion: AppDeletion): Promise<boolean> {
  return atomically(db, async (tx) => {
    const updated = await tx
      .updateTable('apps')
      .set((eb) => ({
        deleted_at: deletion.at,
        deleted_by: deletion.by,
        deleted_name: eb.ref('name'),
        name: tombstoneName(id),
      }))
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    if (deletion.audit) await createLifecycleRepo(tx).insertAudit(deletion.audit);
    return true;
  });
}

export async function listTombstones(db: Db): Promise<AppTombstone[]> {
  const rows = await db
    .selectFrom('apps')
    .selectAll()
    .where('deleted_at', 'is not', null)
    .orderBy('deleted_at')
    .orderBy('id')
    .execute();
  return rows.map(toTombstone);
}

/**
 * One batch, in one transaction: at most `limit` rows of the first table (from `fromTable` on,
 * in plan order) that still holds rows of the tombstoned app, added to its purge progress.
 */
export async function purgeAppBatch(
  db: Db,
  appId: string,
  batch: { limit: number; at: string; fromTable?: string },
): Promise<AppPurgeBatch | null> {
  return atomically(db, async (tx) => {
    const row = await lockTombstone(tx, appId);
    if (!row) return null;
    const start = batch.fromTable === undefined ? 0 : Math.max(0, APP_PURGE_TABLES.indexOf(batch.fromTable));
    for (const table of APP_PURGE_PLAN.slice(start)) {
      const count = await table.deleteSome(tx, appId, batch.limit);
      if (count === 0) continue;
      const before = toTombstone(row).progress;
      const progress: AppPurgeProgress = {
        startedAt: before?.startedAt ?? batch.at,
        updatedAt: batch.at,
        batches: (before?.batches ?? 0) + 1,
        counts: addCounts({ ...before?.counts }, { [table.name]: count }),
      };
      await tx
        .updateTable('apps')
        .set({ purge_progress: toJsonText(progress) })
        .where('id', '=', appId)
        .execute();
      return { table: table.name, removed: count, progress };
    }
    return null;
  });
}

/**
 * Ends a purge in one transaction: when no table holds a row of the app any more, its row is
 * deleted and the audit event `event` makes of the final tombstone is written with it.
 */
export async function finishAppPurge(
  db: Db,
  appId: string,
  event: (tombstone: AppTombstone) => AuditEventRecord | null,
): Promise<AppPurgeFinish> {
  return atomically(db, async (tx) => {
    const row = await lockTombstone(tx, appId);
    if (!row) return { status: 'gone' };
    for (const table of APP_PURGE_PLAN) {
      if (await table.hasRows(tx, appId)) return { status: 'rows_left', table: table.name };
    }
    await tx.deleteFrom('apps').where('id', '=', appId).execute();
    const tombstone = toTombstone(row);
    const audit = event(tombstone);
    if (audit) await createLifecycleRepo(tx).insertAudit(audit);
    return { status: 'purged', tombstone, event: audit };
  });
}

/** How many times a purge goes over the tables again when rows were written behind it. */
const MAX_ROUNDS = 5;

/**
 * The whole purge at once, without an audit event (the store's own `apps.delete`; the services
 * record who deleted through `tombstone` and the engine's purge). True when the app existed.
 */
export async function purgeAppNow(db: Db, id: string, limit = 500): Promise<boolean> {
  const at = new Date().toISOString();
  const tombstoned = await tombstoneApp(db, id, { by: null, at, audit: null });
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    let fromTable: string | undefined;
    for (;;) {
      const batch = await purgeAppBatch(db, id, { limit, at, ...(fromTable ? { fromTable } : {}) });
      if (!batch) break;
      fromTable = batch.table;
    }
    const finished = await finishAppPurge(db, id, () => null);
    if (finished.status === 'gone') return tombstoned;
    if (finished.status === 'purged') return true;
  }
  throw new Error(`App ${id} still gets rows written after ${MAX_ROUNDS} purge rounds.`);
}
