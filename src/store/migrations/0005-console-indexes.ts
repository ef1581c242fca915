import type { Kysely, Migration } from 'kysely';

/**
 * Indexes for what the console reads: an app's conversations newest first (`GET /v1/threads`),
 * and an app's ledger rows by last change, which the ledger event stream polls for what changed
 * since its last look (`GET /v1/tool-calls/events`).
 */
export function createConsoleIndexesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('conversations_app_created_idx')
        .on('conversations')
        .columns(['app_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('ledger_entries_app_updated_idx')
        .on('ledger_entries')
        .columns(['app_id', 'updated_at', 'id'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('ledger_entries_app_updated_idx').execute();
      await db.schema.dropIndex('conversations_app_created_idx').execute();
    },
  };
}
