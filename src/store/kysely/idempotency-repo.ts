import type { Kysely, Selectable } from 'kysely';
import type { IdempotencyRecord } from '../../domain/records.ts';
import type { IdempotencyRepo } from '../store.ts';
import type { Database, IdempotencyKeysTable } from './database-schema.ts';

function toRecord(row: Selectable<IdempotencyKeysTable>): IdempotencyRecord {
  return {
    appId: row.app_id,
    key: row.key,
    requestHash: row.request_hash,
    state: row.state as IdempotencyRecord['state'],
    responseStatus: row.response_status,
    responseBody: row.response_body,
    createdAt: row.created_at,
  };
}

/**
 * A reservation that vanishes between our failed insert and the read (its holder released
 * it) is retried; more than a few rounds means something is badly wrong.
 */
const MAX_RESERVE_ATTEMPTS = 5;

export function createIdempotencyRepo(db: Kysely<Database>): IdempotencyRepo {
  async function get(appId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('app_id', '=', appId)
      .where('key', '=', key)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  return {
    async reserve(appId, key, requestHash, createdAt) {
      for (let attempt = 0; attempt < MAX_RESERVE_ATTEMPTS; attempt++) {
        // The primary key arbitrates: of two concurrent reservations exactly one inserts.
        // ON CONFLICT DO NOTHING instead of catching the error, because on Postgres a failed
        // statement would abort an enclosing transaction.
        const inserted = await db
          .insertInto('idempotency_keys')
          .values({
            app_id: appId,
            key,
            request_hash: requestHash,
            state: 'in_progress',
            response_status: null,
            response_body: null,
            created_at: createdAt,
          })
          .onConflict((oc) => oc.columns(['app_id', 'key']).doNothing())
          .returning('key')
          .executeTakeFirst();
        if (inserted) return { reserved: true };
        const existing = await get(appId, key);
        if (existing) return { reserved: false, existing };
      }
      throw new Error(`Idempotency key ${key} kept being released while reserving it`);
    },

    async complete(appId, key, responseStatus, responseBody) {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', response_status: responseStatus, response_body: responseBody })
        .where('app_id', '=', appId)
        .where('key', '=', key)
        .execute();
    },

    async release(appId, key) {
      // Only in-progress rows: a completed response must keep answering retries.
      await db
        .deleteFrom('idempotency_keys')
        .where('app_id', '=', appId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    get,
  };
}
