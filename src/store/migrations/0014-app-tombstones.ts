import type { Kysely, Migration } from 'kysely';

/**
 * App purges (issue 21). Deleting an app first tombstones its row in one short transaction:
 * `deleted_at` and `deleted_by` (the key that asked) mark it, and its name moves to
 * `deleted_name` while `name` becomes `deleted:{id}`, so the unique name is free for a new app at
 * once (SQLite cannot drop the column's unique constraint to make it partial). The purge then
 * deletes the app's rows in bounded batches and keeps its running totals in `purge_progress`
 * (JSON), written in each batch's transaction, so a purge resumed after a crash still counts every
 * row. The row itself goes last, with the `app.purged` audit event.
 */
export function createAppTombstonesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const column of ['deleted_at', 'deleted_by', 'deleted_name', 'purge_progress']) {
        await db.schema.alterTable('apps').addColumn(column, 'text').execute();
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const column of ['purge_progress', 'deleted_name', 'deleted_by', 'deleted_at']) {
        await db.schema.alterTable('apps').dropColumn(column).execute();
      }
    },
  };
}
