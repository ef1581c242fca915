import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Ledger indexes that only the rows they serve pay for (issue 22). Every index a row is in costs
 * a page in the write-ahead log at each commit that inserts the row or moves its entry, and a
 * client call was in all nine of `ledger_entries`: two of them serve only tool workers' calls, one
 * only calls with a deadline. Made partial, a client call without a deadline (the usual pause)
 * is in six, and its round trip appends about five pages fewer.
 *
 * The queries that use them say the indexes' conditions literally (`executor = 'worker'`,
 * `deadline_at is not null`): neither SQLite nor PostgreSQL matches a partial index to a bound
 * parameter. The columns stay those of 0011 and 0001, less what the condition fixes.
 */
const PARTIAL_INDEXES = [
  {
    name: 'ledger_entries_worker_claim_idx',
    partial: sql`create index ledger_entries_worker_claim_idx on ledger_entries (app_id, tool_name, state, created_at) where executor = 'worker'`,
    full: sql`create index ledger_entries_worker_claim_idx on ledger_entries (executor, state, app_id, tool_name, created_at)`,
  },
  {
    name: 'ledger_entries_worker_lease_idx',
    partial: sql`create index ledger_entries_worker_lease_idx on ledger_entries (state, lease_expires_at) where executor = 'worker'`,
    full: sql`create index ledger_entries_worker_lease_idx on ledger_entries (executor, state, lease_expires_at)`,
  },
  {
    name: 'ledger_entries_state_deadline_idx',
    partial: sql`create index ledger_entries_state_deadline_idx on ledger_entries (state, deadline_at, id) where deadline_at is not null`,
    full: sql`create index ledger_entries_state_deadline_idx on ledger_entries (state, deadline_at, id)`,
  },
];

export function createPartialLedgerIndexesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const index of PARTIAL_INDEXES) {
        await db.schema.dropIndex(index.name).execute();
        await index.partial.execute(db);
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const index of PARTIAL_INDEXES) {
        await db.schema.dropIndex(index.name).execute();
        await index.full.execute(db);
      }
    },
  };
}
