import type { Kysely, Selectable } from 'kysely';
import type { AppResourceRecord, JsonObject, ResourceCollection } from '../../domain/records.ts';
import type { ResourceRepo } from '../store.ts';
import type { AppResourcesTable, Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';

function toRecord(row: Selectable<AppResourcesTable>): AppResourceRecord {
  return {
    appId: row.app_id,
    collection: row.collection as ResourceCollection,
    id: row.id,
    body: fromJsonText<JsonObject>(row.body),
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createResourceRepo(db: Kysely<Database>): ResourceRepo {
  const scoped = (appId: string, collection: ResourceCollection) =>
    db.selectFrom('app_resources').selectAll().where('app_id', '=', appId).where('collection', '=', collection);
  return {
    async insert(record) {
      await insertOrDuplicate('app_resources', () =>
        db
          .insertInto('app_resources')
          .values({
            app_id: record.appId,
            collection: record.collection,
            id: record.id,
            body: toJsonText(record.body),
            revision: record.revision,
            created_at: record.createdAt,
            updated_at: record.updatedAt,
          })
          .execute(),
      );
    },

    async get(appId, collection, id) {
      const row = await scoped(appId, collection).where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    async getMany(appId, collection, ids) {
      if (ids.length === 0) return [];
      const rows = await scoped(appId, collection)
        .where('id', 'in', [...ids])
        .execute();
      const byId = new Map(rows.map((row) => [row.id, toRecord(row)]));
      return ids.flatMap((id) => {
        const record = byId.get(id);
        return record ? [record] : [];
      });
    },

    async list(appId, collection) {
      const rows = await scoped(appId, collection).orderBy('id').execute();
      return rows.map(toRecord);
    },

    async update(appId, collection, id, expectedRevision, body, updatedAt) {
      const row = await db
        .updateTable('app_resources')
        .set((eb) => ({ body: toJsonText(body), revision: eb('revision', '+', 1), updated_at: updatedAt }))
        .where('app_id', '=', appId)
        .where('collection', '=', collection)
        .where('id', '=', id)
        .where('revision', '=', expectedRevision)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async delete(appId, collection, id, expectedRevision) {
      let query = db
        .deleteFrom('app_resources')
        .where('app_id', '=', appId)
        .where('collection', '=', collection)
        .where('id', '=', id);
      if (expectedRevision !== undefined) query = query.where('revision', '=', expectedRevision);
      const result = await query.executeTakeFirst();
      return (result.numDeletedRows ?? 0n) > 0n;
    },
  };
}
