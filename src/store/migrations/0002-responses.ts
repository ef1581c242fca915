import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { MigrationDialect } from './migration-dialect.ts';

/**
 * The Responses face's exchanges (`ResponseRecord`). Same conventions as `0001-initial`: ISO
 * text times, JSON as text, booleans as integer 0/1, foreign keys DEFERRABLE INITIALLY DEFERRED.
 * `previous_response_id` is deliberately not a foreign key: responses are deleted one by one
 * (and purged when unstored), which must not be blocked by, or cascade to, their successors.
 */
export function createResponsesMigration(dialect: MigrationDialect): Migration {
  /** Bytewise comparison on Postgres, as SQLite's BINARY collation (see `0001-initial`). */
  const sortKey = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col;
  /** Item `seq` values, which are 64-bit on Postgres. */
  const seqType = dialect === 'postgres' ? 'bigint' : 'integer';

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('responses')
        .addColumn('id', 'text', (col) => sortKey(col).primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('conversation_id', 'text', (col) => col.notNull())
        .addColumn('turn_id', 'text', (col) => col.notNull())
        .addColumn('previous_response_id', 'text')
        .addColumn('input_first_seq', seqType, (col) => col.notNull())
        .addColumn('input_last_seq', seqType, (col) => col.notNull())
        .addColumn('usage_before', 'text', (col) => col.notNull())
        .addColumn('echo', 'text', (col) => col.notNull())
        .addColumn('stored', 'integer', (col) => col.notNull())
        .addColumn('owns_conversation', 'integer', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => sortKey(col).notNull())
        .addForeignKeyConstraint('responses_conversation_fk', ['conversation_id'], 'conversations', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .addForeignKeyConstraint('responses_turn_fk', ['turn_id'], 'turns', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();
      // Serves next/latest/count in a conversation, and deleting a conversation's responses.
      await db.schema
        .createIndex('responses_conversation_first_seq_idx')
        .on('responses')
        .columns(['conversation_id', 'input_first_seq'])
        .execute();
      // Serves the purge of unstored responses, in (created_at, id) order without a sort step.
      await db.schema
        .createIndex('responses_stored_created_idx')
        .on('responses')
        .columns(['stored', 'created_at', 'id'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('responses').execute();
    },
  };
}
