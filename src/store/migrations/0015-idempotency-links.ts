import { sql, type Kysely, type Migration } from 'kysely';
import { findConversationIds } from '../../domain/ids.ts';

/** Keys whose stored responses the backfill reads per round trip. */
const BACKFILL_BATCH = 500;
/** Links written per statement (three parameters each). */
const INSERT_BATCH = 500;

interface Link {
  app_id: string;
  key: string;
  conversation_id: string;
}

interface DoneKey {
  app_id: string;
  key: string;
  response_body: string;
}

/**
 * Idempotency keys are tied to the conversations their stored responses name when they complete
 * (`idempotency_key_conversations`), so deleting a conversation finds its keys by index instead of
 * reading every response of its app (a LIKE over the whole table per deletion). Keys completed
 * before this migration get their links here, from one pass over their responses, in batches. The
 * `created_at` index serves the expiry of keys older than `server.idempotency_key_ttl_hours`.
 */
export function createIdempotencyLinksMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('idempotency_key_conversations')
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('key', 'text', (col) => col.notNull())
        .addColumn('conversation_id', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('idempotency_key_conversations_pk', ['app_id', 'key', 'conversation_id'])
        .execute();
      // What a conversation's deletion reads: the keys linked to it. `key` last makes it covering,
      // so SQLite's planner prefers it to the primary key's `app_id` prefix (a walk of the app's links).
      await db.schema
        .createIndex('idempotency_key_conversations_conversation_idx')
        .on('idempotency_key_conversations')
        .columns(['app_id', 'conversation_id', 'key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
      await backfillLinks(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('idempotency_keys_created_idx').execute();
      await db.schema.dropTable('idempotency_key_conversations').execute();
    },
  };
}

/** Links every done key to the conversations its response names, paging the keys in primary key order. */
async function backfillLinks(db: Kysely<unknown>): Promise<void> {
  let after: { app_id: string; key: string } | null = null;
  for (;;) {
    const page: { rows: DoneKey[] } = after
      ? await sql<DoneKey>`select app_id, key, response_body from idempotency_keys
          where response_body is not null and (app_id > ${after.app_id} or (app_id = ${after.app_id} and key > ${after.key}))
          order by app_id, key limit ${BACKFILL_BATCH}`.execute(db)
      : await sql<DoneKey>`select app_id, key, response_body from idempotency_keys
          where response_body is not null order by app_id, key limit ${BACKFILL_BATCH}`.execute(db);
    const links: Link[] = page.rows.flatMap((row) =>
      findConversationIds(row.response_body).map((id) => ({ app_id: row.app_id, key: row.key, conversation_id: id })),
    );
    // A few hundred rows per statement: well under either database's limit of bound parameters.
    for (let start = 0; start < links.length; start += INSERT_BATCH) {
      await db
        .withTables<{ idempotency_key_conversations: Link }>()
        .insertInto('idempotency_key_conversations')
        .values(links.slice(start, start + INSERT_BATCH))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    if (page.rows.length < BACKFILL_BATCH) return;
    const last = page.rows[page.rows.length - 1]!;
    after = { app_id: last.app_id, key: last.key };
  }
}
