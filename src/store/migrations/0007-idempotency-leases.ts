import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { MigrationDialect } from './migration-dialect.ts';

/**
 * An in-flight Idempotency-Key gets an owner (the server process running its request) and a
 * lease (`lease_expires_at`, renewed while the request runs). When the owner dies, the lease runs
 * out and a retry of the same request takes the key over, instead of being refused forever.
 * Rows written before this migration, or by a process that predates it, have neither; the repo
 * treats them as leased for a fixed time from `created_at`.
 */
export function createIdempotencyLeasesMigration(dialect: MigrationDialect): Migration {
  // Compared as text against the current time: bytewise on Postgres too, as in `0001-initial`.
  const sortKey = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col;

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
      await db.schema.alterTable('idempotency_keys').addColumn('lease_expires_at', 'text', sortKey).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('idempotency_keys').dropColumn('lease_expires_at').execute();
      await db.schema.alterTable('idempotency_keys').dropColumn('owner').execute();
    },
  };
}
