import type { Kysely, Selectable } from 'kysely';
import type { AppRecord, JsonObject } from '../../domain/records.ts';
import type { AppRepo } from '../store.ts';
import { atomically } from './atomically.ts';
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

    async get(id) {
      const row = await db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    async getByName(name) {
      const row = await db.selectFrom('apps').selectAll().where('name', '=', name).executeTakeFirst();
      return row && toRecord(row);
    },

    async listByProject(project) {
      const rows = await db.selectFrom('apps').selectAll().where('project', '=', project).orderBy('name').execute();
      return rows.map(toRecord);
    },

    async updateSettings(id, expectedRevision, settings, updatedAt) {
      const row = await db
        .updateTable('apps')
        .set((eb) => ({ settings: toJsonText(settings), revision: eb('revision', '+', 1), updated_at: updatedAt }))
        .where('id', '=', id)
        .where('revision', '=', expectedRevision)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async delete(id) {
      return atomically(db, async (tx) => {
        const deleted = await tx.deleteFrom('apps').where('id', '=', id).executeTakeFirst();
        if ((deleted.numDeletedRows ?? 0n) === 0n) return false;
        // Children by conversation first (items have no app_id), then everything keyed by app.
        const conversations = tx.selectFrom('conversations').select('id').where('app_id', '=', id);
        await tx.deleteFrom('ces_sessions').where('app_id', '=', id).execute();
        await tx.deleteFrom('responses').where('app_id', '=', id).execute();
        await tx.deleteFrom('ledger_entries').where('app_id', '=', id).execute();
        await tx.deleteFrom('items').where('conversation_id', 'in', conversations).execute();
        await tx.deleteFrom('queued_inputs').where('app_id', '=', id).execute();
        await tx.deleteFrom('turns').where('app_id', '=', id).execute();
        await tx.deleteFrom('conversations').where('app_id', '=', id).execute();
        const agents = tx.selectFrom('agents').select('id').where('app_id', '=', id);
        await tx.deleteFrom('agent_versions').where('agent_id', 'in', agents).execute();
        await tx.deleteFrom('agents').where('app_id', '=', id).execute();
        await tx.deleteFrom('app_resources').where('app_id', '=', id).execute();
        await tx.deleteFrom('secrets').where('app_id', '=', id).execute();
        await tx.deleteFrom('idempotency_keys').where('app_id', '=', id).execute();
        await tx.deleteFrom('api_keys').where('app_id', '=', id).execute();
        await tx.deleteFrom('webhook_deliveries').where('app_id', '=', id).execute();
        await tx.deleteFrom('webhook_events').where('app_id', '=', id).execute();
        await tx.deleteFrom('webhook_endpoints').where('app_id', '=', id).execute();
        return true;
      });
    },
  };
}
