import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { MigrationDialect } from './migration-dialect.ts';

/**
 * The initial schema. Conventions, relied on by `store/kysely/`:
 * - times are ISO-8601 text (they sort lexicographically);
 * - JSON is text, parsed by the repos, so both dialects return the same JS values;
 * - booleans are integer 0/1 for the same reason.
 *
 * Foreign keys are DEFERRABLE INITIALLY DEFERRED: they still stop orphans, but are checked
 * at commit, so a transaction may write a turn and its conversation in either order.
 * Agents are deliberately not referenced: deleting one must leave its conversations, turns
 * and version rows in place so paused turns can resume.
 */
export function createInitialMigration(dialect: MigrationDialect): Migration {
  /**
   * Sort-key text columns compare bytewise, as SQLite's default BINARY collation does, so
   * orderings (and the pagination built on them) match across dialects and do not depend on
   * the Postgres server's locale.
   */
  const sortKey = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col;

  /** A 64-bit surrogate key the database assigns in insertion order. */
  const serialKey = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? col.primaryKey().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement();
  // SQLite only honours AUTOINCREMENT on exactly `integer primary key`.
  const serialType = dialect === 'postgres' ? 'bigint' : 'integer';

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('apps')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('name', 'text')
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('prefix', 'text', (col) => col.notNull())
        .addColumn('role', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('revoked_at', 'text')
        .addForeignKeyConstraint('api_keys_app_fk', ['app_id'], 'apps', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();

      await db.schema
        .createTable('agents')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('name', 'text', (col) => sortKey(col).notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('definition', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        // Also the index behind listing an app's agents by name.
        .addUniqueConstraint('agents_app_name_unique', ['app_id', 'name'])
        .addForeignKeyConstraint('agents_app_fk', ['app_id'], 'apps', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();

      await db.schema
        .createTable('agent_versions')
        .addColumn('agent_id', 'text', (col) => col.notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('definition', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('agent_versions_pk', ['agent_id', 'version'])
        .execute();

      await db.schema
        .createTable('conversations')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('agent_id', 'text', (col) => col.notNull())
        .addColumn('agent_name', 'text', (col) => col.notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('active_turn_id', 'text')
        .addColumn('head_turn_id', 'text')
        .addColumn('metadata', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addForeignKeyConstraint('conversations_app_fk', ['app_id'], 'apps', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();

      await db.schema
        .createTable('turns')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('conversation_id', 'text', (col) => col.notNull())
        .addColumn('agent_id', 'text', (col) => col.notNull())
        .addColumn('agent_version', 'integer', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('options', 'text', (col) => col.notNull())
        .addColumn('finish_reason', 'text')
        .addColumn('error', 'text')
        .addColumn('step_count', 'integer', (col) => col.notNull())
        .addColumn('usage', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => sortKey(col).notNull())
        .addColumn('completed_at', 'text')
        .addForeignKeyConstraint('turns_conversation_fk', ['conversation_id'], 'conversations', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();
      await db.schema
        .createIndex('turns_status_updated_idx')
        .on('turns')
        .columns(['status', 'updated_at', 'id'])
        .execute();
      await db.schema.createIndex('turns_conversation_idx').on('turns').column('conversation_id').execute();

      await db.schema
        .createTable('items')
        .addColumn('seq', serialType, serialKey)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('conversation_id', 'text', (col) => col.notNull())
        .addColumn('turn_id', 'text', (col) => col.notNull())
        .addColumn('group_id', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('payload', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addForeignKeyConstraint('items_conversation_fk', ['conversation_id'], 'conversations', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .addForeignKeyConstraint('items_turn_fk', ['turn_id'], 'turns', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();
      // Serves paging forwards and listWindow walking backwards from the newest item.
      await db.schema
        .createIndex('items_conversation_seq_idx')
        .on('items')
        .columns(['conversation_id', 'seq'])
        .execute();
      await db.schema.createIndex('items_turn_seq_idx').on('items').columns(['turn_id', 'seq']).execute();

      await db.schema
        .createTable('ledger_entries')
        .addColumn('id', 'text', (col) => sortKey(col).primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('conversation_id', 'text', (col) => col.notNull())
        .addColumn('turn_id', 'text', (col) => col.notNull())
        .addColumn('agent_name', 'text', (col) => col.notNull())
        .addColumn('tool_name', 'text', (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('arguments', 'text', (col) => col.notNull())
        .addColumn('arguments_hash', 'text', (col) => col.notNull())
        .addColumn('call_index', 'integer', (col) => col.notNull())
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('deadline_at', 'text', (col) => sortKey(col))
        .addColumn('timeout_policy', 'text', (col) => col.notNull())
        .addColumn('result', 'text')
        .addColumn('is_error', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('submitted_by', 'text')
        .addColumn('submitted_at', 'text')
        .addColumn('idempotency_key', 'text')
        .addColumn('created_at', 'text', (col) => sortKey(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addForeignKeyConstraint('ledger_entries_conversation_fk', ['conversation_id'], 'conversations', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .addForeignKeyConstraint('ledger_entries_turn_fk', ['turn_id'], 'turns', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();
      await db.schema
        .createIndex('ledger_entries_app_state_created_idx')
        .on('ledger_entries')
        // id last, matching the (created_at, id) page order, so no sort step is needed.
        .columns(['app_id', 'state', 'created_at', 'id'])
        .execute();
      // The unfiltered listing (no state) pages an app's whole ledger in (created_at, id) order.
      await db.schema
        .createIndex('ledger_entries_app_created_idx')
        .on('ledger_entries')
        .columns(['app_id', 'created_at', 'id'])
        .execute();
      await db.schema.createIndex('ledger_entries_turn_idx').on('ledger_entries').column('turn_id').execute();
      await db.schema
        .createIndex('ledger_entries_state_deadline_idx')
        .on('ledger_entries')
        .columns(['state', 'deadline_at', 'id'])
        .execute();
      await db.schema
        .createIndex('ledger_entries_conversation_state_idx')
        .on('ledger_entries')
        .columns(['conversation_id', 'state'])
        .execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('key', 'text', (col) => col.notNull())
        .addColumn('request_hash', 'text', (col) => col.notNull())
        .addColumn('state', 'text', (col) => col.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        // The primary key is what makes reserve() race-free.
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['app_id', 'key'])
        .execute();

      await db.schema
        .createTable('queued_inputs')
        .addColumn('seq', serialType, serialKey)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('conversation_id', 'text', (col) => col.notNull())
        .addColumn('content', 'text', (col) => col.notNull())
        .addColumn('options', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addForeignKeyConstraint('queued_inputs_conversation_fk', ['conversation_id'], 'conversations', ['id'], (fk) =>
          fk.deferrable().initiallyDeferred(),
        )
        .execute();
      await db.schema
        .createIndex('queued_inputs_conversation_seq_idx')
        .on('queued_inputs')
        .columns(['conversation_id', 'seq'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      // Children before parents, so foreign keys never block a drop.
      for (const table of [
        'queued_inputs',
        'idempotency_keys',
        'ledger_entries',
        'items',
        'turns',
        'conversations',
        'agent_versions',
        'agents',
        'api_keys',
        'apps',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
