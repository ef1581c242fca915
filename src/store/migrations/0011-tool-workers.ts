import type { Kysely, Migration } from 'kysely';

/**
 * Tool workers (docs/tool-workers.md). A call of a tool marked `executor: worker` is offered to
 * workers, which claim it under a lease: the lease columns say who holds it and until when, and
 * `attempts` counts claims, so a call whose workers keep dying resolves after `max_attempts`.
 * `api_keys.tool_scope` restricts a worker key to the calls of some tools (JSON array, or null).
 */
export function createToolWorkersMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('ledger_entries')
        .addColumn('executor', 'text', (col) => col.notNull().defaultTo('client'))
        .execute();
      for (const [column, type] of [
        ['max_attempts', 'integer'],
        ['lease_token', 'text'],
        ['lease_holder', 'text'],
        ['lease_key_id', 'text'],
        ['leased_at', 'text'],
        ['lease_expires_at', 'text'],
      ] as const) {
        await db.schema.alterTable('ledger_entries').addColumn(column, type).execute();
      }
      await db.schema
        .alterTable('ledger_entries')
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      // What a claim reads: an app's pending calls of some worker tools, oldest first.
      await db.schema
        .createIndex('ledger_entries_worker_claim_idx')
        .on('ledger_entries')
        .columns(['executor', 'state', 'app_id', 'tool_name', 'created_at'])
        .execute();
      // What the sweeper reads: leases that lapsed on calls still pending.
      await db.schema
        .createIndex('ledger_entries_worker_lease_idx')
        .on('ledger_entries')
        .columns(['executor', 'state', 'lease_expires_at'])
        .execute();
      await db.schema.alterTable('api_keys').addColumn('tool_scope', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('api_keys').dropColumn('tool_scope').execute();
      await db.schema.dropIndex('ledger_entries_worker_lease_idx').execute();
      await db.schema.dropIndex('ledger_entries_worker_claim_idx').execute();
      for (const column of [
        'attempts',
        'lease_expires_at',
        'leased_at',
        'lease_key_id',
        'lease_holder',
        'lease_token',
        'max_attempts',
        'executor',
      ]) {
        await db.schema.alterTable('ledger_entries').dropColumn(column).execute();
      }
    },
  };
}
