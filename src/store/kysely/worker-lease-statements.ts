import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { LedgerRepo } from '../store.ts';
import type { MigrationDialect } from '../migrations/migration-dialect.ts';
import type { Database } from './database-schema.ts';
import { ledgerEntryFromRow } from './ledger-entry-row.ts';

export type LeaseStatements = Pick<
  LedgerRepo,
  'claim' | 'renewLease' | 'releaseLease' | 'listLapsedLeases' | 'clearLapsedLease' | 'hasWorkerCalls'
>;

/** A pending call whose live lease `token` holds at `now`: what a renewal or a release changes. */
function heldLiveBy(appId: string, id: string, token: string, now: string) {
  return (eb: ExpressionBuilder<Database, 'ledger_entries'>) =>
    eb.and([
      eb('app_id', '=', appId),
      eb('id', '=', id),
      eb('state', '=', 'pending'),
      eb('lease_token', '=', token),
      eb('lease_expires_at', '>=', now),
    ]);
}

/** Literal, not a parameter: the worker indexes are partial on it (migration 0016). */
const WORKER = sql.lit('worker');

/**
 * The ledger's worker leases (docs/tool-workers.md). A lease lives on the call's row: who holds it,
 * its token and when it ends. A lease that ended is no hold at all: every statement compares
 * `lease_expires_at` with the caller's now, so a dead worker's calls return to the pool without
 * anything having to clear them first.
 */
export function createWorkerLeaseStatements(db: Kysely<Database>, flavor: MigrationDialect): LeaseStatements {
  return {
    async claim(claim) {
      let candidates = db
        .selectFrom('ledger_entries')
        .select('id')
        .where('executor', '=', WORKER)
        .where('state', '=', 'pending')
        .where('app_id', '=', claim.appId)
        .where('tool_name', 'in', [...claim.tools])
        .where((eb) => eb.or([eb('lease_token', 'is', null), eb('lease_expires_at', '<', claim.now)]))
        .where((eb) => eb('attempts', '<', eb.fn.coalesce('max_attempts', sql.lit(1))));
      if (claim.agents) candidates = candidates.where('agent_name', 'in', [...claim.agents]);
      candidates = candidates.orderBy('created_at').orderBy('call_index').orderBy('id').limit(claim.limit);
      // Replicas claiming at once skip each other's candidates instead of waiting on them and then
      // finding them taken; SQLite's write transactions are serialised already.
      const ids = (await (flavor === 'postgres' ? candidates.forUpdate().skipLocked() : candidates).execute()).map(
        (row) => row.id,
      );
      if (ids.length === 0) return [];
      const tokens = ids.map(() => claim.newToken());
      const rows = await db
        .updateTable('ledger_entries')
        .set((eb) => ({
          lease_token: sql<string>`case ${sql.join(
            ids.map((id, index) => sql`when id = ${id} then ${tokens[index]}`),
            sql` `,
          )} end`,
          lease_holder: claim.holder,
          lease_key_id: claim.keyId,
          leased_at: claim.now,
          lease_expires_at: claim.expiresAt,
          attempts: eb('attempts', '+', 1),
        }))
        .where('id', 'in', ids)
        .where('state', '=', 'pending')
        .where((eb) => eb.or([eb('lease_token', 'is', null), eb('lease_expires_at', '<', claim.now)]))
        .returningAll()
        .execute();
      const order = new Map(ids.map((id, index) => [id, index]));
      return rows.map(ledgerEntryFromRow).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    },

    async renewLease(appId, id, token, now, expiresAt) {
      const row = await db
        .updateTable('ledger_entries')
        .set({ lease_expires_at: expiresAt })
        .where(heldLiveBy(appId, id, token, now))
        .returningAll()
        .executeTakeFirst();
      return row && ledgerEntryFromRow(row);
    },

    async releaseLease(appId, id, token, now) {
      const row = await db
        .updateTable('ledger_entries')
        .set((eb) => ({
          lease_token: null,
          lease_holder: null,
          lease_key_id: null,
          leased_at: null,
          lease_expires_at: null,
          // An unstarted claim given back was no attempt.
          attempts: eb('attempts', '-', 1),
        }))
        .where(heldLiveBy(appId, id, token, now))
        .returningAll()
        .executeTakeFirst();
      return row && ledgerEntryFromRow(row);
    },

    async listLapsedLeases(now, limit) {
      if (limit < 1) return [];
      const rows = await db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('executor', '=', WORKER)
        .where('state', '=', 'pending')
        .where('lease_expires_at', '<', now)
        .orderBy('lease_expires_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(ledgerEntryFromRow);
    },

    async clearLapsedLease(appId, id, token) {
      const result = await db
        .updateTable('ledger_entries')
        .set({ lease_token: null, lease_holder: null, lease_key_id: null, leased_at: null, lease_expires_at: null })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .where('lease_token', '=', token)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async hasWorkerCalls(appId, toolName) {
      const row = await db
        .selectFrom('ledger_entries')
        .select('id')
        .where('executor', '=', WORKER)
        .where('app_id', '=', appId)
        .where('tool_name', '=', toolName)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
