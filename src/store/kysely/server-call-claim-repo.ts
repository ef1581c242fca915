import type { Kysely } from 'kysely';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import type { ServerCallClaimRepo } from '../store.ts';
import type { Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';

export function createServerCallClaimRepo(db: Kysely<Database>): ServerCallClaimRepo {
  return {
    async claim(entry, claimedAt) {
      await insertOrDuplicate('server_call_claims', () =>
        db
          .insertInto('server_call_claims')
          .values({
            id: entry.id,
            app_id: entry.appId,
            turn_id: entry.turnId,
            entry: toJsonText(entry),
            claimed_at: claimedAt,
          })
          .execute(),
      );
    },

    async renew(id, claimedAt) {
      await db.updateTable('server_call_claims').set({ claimed_at: claimedAt }).where('id', '=', id).execute();
    },

    async release(id) {
      await db.deleteFrom('server_call_claims').where('id', '=', id).execute();
    },

    async listStale(before, limit) {
      const rows = await db
        .selectFrom('server_call_claims')
        .select('entry')
        .where('claimed_at', '<', before)
        .orderBy('claimed_at')
        .limit(limit)
        .execute();
      return rows.map((row) => fromJsonText<LedgerEntryRecord>(row.entry));
    },

    async listByTurn(turnId) {
      const rows = await db
        .selectFrom('server_call_claims')
        .select('entry')
        .where('turn_id', '=', turnId)
        .orderBy('claimed_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => fromJsonText<LedgerEntryRecord>(row.entry));
    },

    async releaseTurn(turnId) {
      await db.deleteFrom('server_call_claims').where('turn_id', '=', turnId).execute();
    },
  };
}
