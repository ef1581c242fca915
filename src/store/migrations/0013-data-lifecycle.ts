import type { Kysely, Migration } from 'kysely';

/**
 * Data lifecycle (issue 21, docs/conversation-export.md). `audit_events` records deletions,
 * exports, retention runs and app purges per app; it has no foreign key to `apps`, so an app's
 * purge record outlives the app. `ledger_entries.tool_data_removed_at` marks a call whose
 * arguments and result a retention policy removed (its state and timestamps stay). The
 * conversations index serves the retention job's "idle since" scan.
 */
export function createDataLifecycleMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('audit_events')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('actor', 'text')
        .addColumn('action', 'text', (col) => col.notNull())
        .addColumn('target', 'text')
        .addColumn('counts', 'text', (col) => col.notNull())
        .addColumn('details', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('audit_events_app_idx')
        .on('audit_events')
        .columns(['app_id', 'created_at', 'id'])
        .execute();
      await db.schema.alterTable('ledger_entries').addColumn('tool_data_removed_at', 'text').execute();
      await db.schema
        .createIndex('conversations_app_updated_idx')
        .on('conversations')
        .columns(['app_id', 'updated_at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('conversations_app_updated_idx').execute();
      await db.schema.alterTable('ledger_entries').dropColumn('tool_data_removed_at').execute();
      await db.schema.dropTable('audit_events').execute();
    },
  };
}
