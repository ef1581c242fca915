import type { Kysely, Selectable } from 'kysely';
import type { AppRecord, JsonObject } from '../../domain/records.ts';
import type { AppRepo } from '../store.ts';
import { finishAppPurge, listTombstones, purgeAppBatch, purgeAppNow, tombstoneApp } from './app-purge.ts';
import type { AppsTable, Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';

function toRecord(row: Selectable<AppsTable>): AppRecord {
  return {
    id: row.id,
    name: row.name,
    project: row.project,
    location: row.location,
    settings: fromJsonText<JsonObject>(row.settings),
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at ?? row.created_at,
  };
}

export function createAppRepo(db: Kysely<Database>): AppRepo {
  return {
    async insert(app) {
      await insertOrDuplicate('apps', () =>
        db
          .insertInto('apps')
          .values({
            id: app.id,
            name: app.name,
            project: app.project,
            location: app.location,
            settings: toJsonText(app.settings),
            revision: app.revision,
            created_at: app.createdAt,
            updated_at: app.updatedAt,
          })
          .execute(),
      );
    },

    // Reads and writes see live apps only: a tombstone is a deleted app whose rows are being purged.
    async get(id) {
      const row = await db
        .selectFrom('apps')
        .selectAll()
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async getByName(name) {
      const row = await db
        .selectFrom('apps')
        .selectAll()
        .where('name', '=', name)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async listByProject(project) {
      const rows = await db
        .selectFrom('apps')
        .selectAll()
        .where('project', '=', project)
        .where('deleted_at', 'is', null)
        .orderBy('name')
        .execute();
      return rows.map(toRecord);
    },

    async updateSettings(id, expectedRevision, settings, updatedAt) {
      const row = await db
        .updateTable('apps')
        .set((eb) => ({ settings: toJsonText(settings), revision: eb('revision', '+', 1), updated_at: updatedAt }))
        .where('id', '=', id)
        .where('revision', '=', expectedRevision)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },

    tombstone: (id, deletion) => tombstoneApp(db, id, deletion),
    listTombstones: () => listTombstones(db),
    purgeBatch: (appId, batch) => purgeAppBatch(db, appId, batch),
    finishPurge: (appId, event) => finishAppPurge(db, appId, event),
    delete: (id) => purgeAppNow(db, id),
  };
}
