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
          })
          .execute(),
      );
    },

    async findByHash(keyHash) {
      const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
      return row && toRecord(row);
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
