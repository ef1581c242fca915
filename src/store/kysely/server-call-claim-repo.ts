import type { Kysely } from 'kysely';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import type { ServerCallClaimRepo } from '../store.ts';
import type { Database } from './database-schema.ts';
import { fromJsonText, toJsonText } from './json-text.ts';

export function createServerCallClaimRepo(db: Kysely<Database>): ServerCallClaimRepo {
  return {
    async claim(entry, claimedAt) {
      await db
        .insertInto('server_call_claims')
        .values({
          id: entry.id,
          app_id: entry.appId,
          turn_id: entry.turnId,
          entry: toJsonText(entry),
          claimed_at: claimedAt,
        })
        .execute();
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
