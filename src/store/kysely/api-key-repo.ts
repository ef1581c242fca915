import type { Kysely, Selectable } from 'kysely';
import type { ApiKeyRecord, ApiKeyRole } from '../../domain/records.ts';
import type { ApiKeyRepo } from '../store.ts';
import type { ApiKeysTable, Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';

function toRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    appId: row.app_id,
    name: row.name,
    keyHash: row.key_hash,
    prefix: row.prefix,
    role: row.role as ApiKeyRole,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    toolScope: row.tool_scope === null ? null : (JSON.parse(row.tool_scope) as string[]),
  };
}

export function createApiKeyRepo(db: Kysely<Database>): ApiKeyRepo {
  return {
    async insert(key) {
      await insertOrDuplicate('api_keys', () =>
        db
          .insertInto('api_keys')
          .values({
            id: key.id,
            app_id: key.appId,
            name: key.name,
            key_hash: key.keyHash,
            prefix: key.prefix,
            role: key.role,
            created_at: key.createdAt,
            revoked_at: key.revokedAt,
            expires_at: key.expiresAt,
            last_used_at: key.lastUsedAt,
            tool_scope: key.toolScope === null ? null : JSON.stringify(key.toolScope),
          })
          .execute(),
      );
    },

    // Only a live app's keys: a deleted app's stop authenticating on every replica as soon as its
    // tombstone commits, though the purge deletes them later (migration 0014).
    async findByHash(keyHash) {
      const row = await db
        .selectFrom('api_keys')
        .innerJoin('apps', 'apps.id', 'api_keys.app_id')
        .selectAll('api_keys')
        .where('api_keys.key_hash', '=', keyHash)
        .where('apps.deleted_at', 'is', null)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async get(appId, id) {
      const row = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async listByApp(appId, limit) {
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('app_id', '=', appId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toRecord);
    },

    async revoke(appId, id, at) {
      await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute();
      return this.get(appId, id);
    },

    async expireBy(appId, id, at) {
      await db
        .updateTable('api_keys')
        .set({ expires_at: at })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]))
        .execute();
    },

    async touch(id, at, staleBefore) {
      await db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
        .execute();
    },

    async count() {
      const row = await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      // count(*) is bigint on Postgres (a string through pg).
      return Number(row.n);
    },
  };
}
