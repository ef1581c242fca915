import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { IdempotencyRecord } from '../../domain/records.ts';
import { LEGACY_IDEMPOTENCY_LEASE_MS, type IdempotencyRepo } from '../store.ts';
import { atomically } from './atomically.ts';
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

    async complete(appId, key, owner, responseStatus, responseBody, conversationIds = []) {
      const store = async (tx: Kysely<Database>): Promise<boolean> => {
        const result = await tx
          .updateTable('idempotency_keys')
          .set({ state: 'done', response_status: responseStatus, response_body: responseBody, lease_expires_at: null })
          .where('app_id', '=', appId)
          .where('key', '=', key)
          .where('state', '=', 'in_progress')
          .where('owner', '=', owner)
          .executeTakeFirst();
        const stored = result.numUpdatedRows > 0n;
        // Only the owner that stored the response links it: a key taken over is linked by its new owner.
        if (stored && conversationIds.length > 0) {
          await tx
            .insertInto('idempotency_key_conversations')
            .values([...new Set(conversationIds)].map((id) => ({ app_id: appId, key, conversation_id: id })))
            // Defensive: links go with their key, but a leftover one must never fail a completion.
            .onConflict((oc) => oc.doNothing())
            .execute();
        }
        return stored;
      };
      // A response naming no conversation is one statement, without a transaction around it.
      return conversationIds.length === 0 ? store(db) : atomically(db, store);
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

    async deleteExpired(before, limit, now) {
      return atomically(db, async (tx) => {
        // The condition is repeated on the delete itself: on PostgreSQL a row changed since the
        // subquery read it (a retry took the key over and renewed its lease) is checked again.
        const expired = (eb: ExpressionBuilder<Database, 'idempotency_keys'>) =>
          eb.and([
            eb('created_at', '<', before),
            eb.or([eb('state', '=', 'done'), eb('lease_expires_at', '<', now), eb('lease_expires_at', 'is', null)]),
          ]);
        const deleted = await tx
          .deleteFrom('idempotency_keys')
          .where((eb) =>
            eb.and([
              eb(
                eb.refTuple('app_id', 'key'),
                'in',
                eb
                  .selectFrom('idempotency_keys')
                  .select(['app_id', 'key'])
                  .where(expired)
                  .orderBy('created_at')
                  .limit(limit)
                  .$asTuple('app_id', 'key'),
              ),
              expired(eb),
            ]),
          )
          .returning(['app_id', 'key'])
          .execute();
        // Their links, one statement per app (a batch holds few): `key in (…)` is one index scan
        // on PostgreSQL, where a list of (app_id, key) pairs is planned as hundreds of ORs.
        const keysByApp = new Map<string, string[]>();
        for (const row of deleted) {
          const keys = keysByApp.get(row.app_id);
          if (keys) keys.push(row.key);
          else keysByApp.set(row.app_id, [row.key]);
        }
        for (const [appId, keys] of keysByApp) {
          await tx
            .deleteFrom('idempotency_key_conversations')
            .where('app_id', '=', appId)
            .where('key', 'in', keys)
            .execute();
        }
        return deleted.length;
      });
    },
  };
}
