import type { Kysely, Selectable } from 'kysely';
import type { IdempotencyRecord } from '../../domain/records.ts';
import { LEGACY_IDEMPOTENCY_LEASE_MS, type IdempotencyRepo } from '../store.ts';
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
    owner: row.owner,
    leaseExpiresAt: row.lease_expires_at,
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
    async reserve(appId, key, requestHash, now, lease) {
      const legacyCreatedBefore = new Date(Date.parse(now) - LEGACY_IDEMPOTENCY_LEASE_MS).toISOString();
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
            created_at: now,
            owner: lease.owner,
            lease_expires_at: lease.expiresAt,
          })
          .onConflict((oc) => oc.columns(['app_id', 'key']).doNothing())
          .returning('key')
          .executeTakeFirst();
        if (inserted) return { reserved: true, takenOver: false };
        // The owner died mid-request: the same request takes the key over. One statement, so of
        // two retries racing for it one wins (the loser sees the lease the winner just set).
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ owner: lease.owner, lease_expires_at: lease.expiresAt })
          .where('app_id', '=', appId)
          .where('key', '=', key)
          .where('state', '=', 'in_progress')
          .where('request_hash', '=', requestHash)
          .where((eb) =>
            eb.or([
              eb('lease_expires_at', '<', now),
              eb.and([eb('lease_expires_at', 'is', null), eb('created_at', '<', legacyCreatedBefore)]),
            ]),
          )
          .returning('key')
          .executeTakeFirst();
        if (taken) return { reserved: true, takenOver: true };
        const existing = await get(appId, key);
        if (existing) return { reserved: false, existing };
      }
      throw new Error(`Idempotency key ${key} kept being released while reserving it`);
    },

    async renew(appId, key, lease) {
      const result = await db
        .updateTable('idempotency_keys')
        .set({ lease_expires_at: lease.expiresAt })
        .where('app_id', '=', appId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .where('owner', '=', lease.owner)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async complete(appId, key, owner, responseStatus, responseBody) {
      const result = await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', response_status: responseStatus, response_body: responseBody, lease_expires_at: null })
        .where('app_id', '=', appId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .where('owner', '=', owner)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async release(appId, key, owner) {
      // Only in-progress rows this owner holds: a completed response must keep answering
      // retries, and a key taken over belongs to its new owner.
      await db
        .deleteFrom('idempotency_keys')
        .where('app_id', '=', appId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .where('owner', '=', owner)
        .execute();
    },

    get,
  };
}
