import type { ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { MigrationDialect } from './migration-dialect.ts';

/**
 * Webhooks (issue 20). `webhook_endpoints` are app resources; `webhook_events` is the outbox,
 * written in the transaction of the change that caused each event (`seq` orders them);
 * `webhook_deliveries` holds one row per event and matching endpoint, claimed by the delivery
 * worker of any replica (`next_attempt_at` is also when a claim lapses).
 */
export function createWebhooksMigration(dialect: MigrationDialect): Migration {
  const serialKey = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? col.primaryKey().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement();
  const serialType = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('event_types', 'text', (col) => col.notNull())
        .addColumn('agents', 'text')
        .addColumn('tools', 'text')
        .addColumn('include_arguments', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('enabled', 'integer', (col) => col.notNull().defaultTo(1))
        .addColumn('secret_ciphertext', 'text', (col) => col.notNull())
        .addColumn('previous_secret_ciphertext', 'text')
        .addColumn('previous_secret_expires_at', 'text')
        .addColumn('failing_since', 'text')
        .addColumn('disabled_reason', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_endpoints_app_idx')
        .on('webhook_endpoints')
        .columns(['app_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('webhook_events')
        .addColumn('seq', serialType, serialKey)
        .addColumn('id', 'text', (col) => col.notNull().unique())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('conversation_id', 'text')
        .addColumn('agent_name', 'text')
        .addColumn('tool_name', 'text')
        .addColumn('data', 'text', (col) => col.notNull())
        .addColumn('fanned_out', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();
      // What the fan-out reads: events not yet turned into deliveries, oldest first.
      await db.schema
        .createIndex('webhook_events_fan_out_idx')
        .on('webhook_events')
        .columns(['fanned_out', 'seq'])
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('app_id', 'text', (col) => col.notNull())
        .addColumn('endpoint_id', 'text', (col) => col.notNull())
        .addColumn('event_id', 'text', (col) => col.notNull())
        .addColumn('event_seq', 'bigint', (col) => col.notNull())
        .addColumn('event_type', 'text', (col) => col.notNull())
        .addColumn('conversation_id', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text')
        .addColumn('claim_token', 'text')
        .addColumn('last_attempt_at', 'text')
        .addColumn('last_response_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      // What the worker claims: pending deliveries that are due.
      await db.schema
        .createIndex('webhook_deliveries_due_idx')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      // What an endpoint's delivery list reads, newest first.
      await db.schema
        .createIndex('webhook_deliveries_endpoint_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'event_seq'])
        .execute();
      // What keeps a conversation's events in order per endpoint: an earlier one still pending there.
      await db.schema
        .createIndex('webhook_deliveries_order_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'conversation_id', 'status', 'event_seq'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('webhook_deliveries').execute();
      await db.schema.dropTable('webhook_events').execute();
      await db.schema.dropTable('webhook_endpoints').execute();
    },
  };
}
