import type { Kysely, Selectable } from 'kysely';
import type { SecretRecord } from '../../domain/records.ts';
import type { SecretRepo } from '../store.ts';
import type { Database, SecretsTable } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';

function toRecord(row: Selectable<SecretsTable>): SecretRecord {
  return {
    appId: row.app_id,
    id: row.id,
    displayName: row.display_name,
    ciphertext: row.ciphertext,
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createSecretRepo(db: Kysely<Database>): SecretRepo {
  return {
    async insert(record) {
      await insertOrDuplicate('secrets', () =>
        db
          .insertInto('secrets')
          .values({
            app_id: record.appId,
            id: record.id,
            display_name: record.displayName,
            ciphertext: record.ciphertext,
            revision: record.revision,
            created_at: record.createdAt,
            updated_at: record.updatedAt,
          })
          .execute(),
      );
    },

    async get(appId, id) {
      const row = await db
        .selectFrom('secrets')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async list(appId) {
      const rows = await db.selectFrom('secrets').selectAll().where('app_id', '=', appId).orderBy('id').execute();
      return rows.map(toRecord);
    },

    async update(appId, id, expectedRevision, patch, updatedAt) {
      const row = await db
        .updateTable('secrets')
        .set((eb) => ({
          ciphertext: patch.ciphertext,
          display_name: patch.displayName,
          revision: eb('revision', '+', 1),
          updated_at: updatedAt,
        }))
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .where('revision', '=', expectedRevision)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async delete(appId, id) {
      const result = await db.deleteFrom('secrets').where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
      return (result.numDeletedRows ?? 0n) > 0n;
    },
  };
}
