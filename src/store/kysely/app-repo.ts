import type { Kysely, Selectable } from 'kysely';
import type { AppRecord } from '../records.ts';
import type { AppRepo } from '../store.ts';
import type { AppsTable, Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';

function toRecord(row: Selectable<AppsTable>): AppRecord {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export function createAppRepo(db: Kysely<Database>): AppRepo {
  return {
    async insert(app) {
      await insertOrDuplicate('apps', () =>
        db.insertInto('apps').values({ id: app.id, name: app.name, created_at: app.createdAt }).execute(),
      );
    },

    async get(id) {
      const row = await db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    async getByName(name) {
      const row = await db.selectFrom('apps').selectAll().where('name', '=', name).executeTakeFirst();
      return row && toRecord(row);
    },
  };
}
