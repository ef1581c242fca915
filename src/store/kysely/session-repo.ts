import type { Kysely, Selectable } from 'kysely';
import type { JsonObject, SessionRecord } from '../../domain/records.ts';
import type { SessionRepo } from '../store.ts';
import type { CesSessionsTable, Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';

function toRecord(row: Selectable<CesSessionsTable>): SessionRecord {
  return {
    appId: row.app_id,
    id: row.id,
    conversationId: row.conversation_id,
    ended: row.ended === 1,
    variables: fromJsonText<JsonObject>(row.variables),
    turnCount: row.turn_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createSessionRepo(db: Kysely<Database>): SessionRepo {
  return {
    async insert(record) {
      await insertOrDuplicate('ces_sessions', () =>
        db
          .insertInto('ces_sessions')
          .values({
            app_id: record.appId,
            id: record.id,
            conversation_id: record.conversationId,
            ended: record.ended ? 1 : 0,
            variables: toJsonText(record.variables),
            turn_count: record.turnCount,
            created_at: record.createdAt,
            updated_at: record.updatedAt,
          })
          .execute(),
      );
    },

    async get(appId, id) {
      const row = await db
        .selectFrom('ces_sessions')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async getByConversation(conversationId) {
      const row = await db
        .selectFrom('ces_sessions')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async list(appId) {
      const rows = await db.selectFrom('ces_sessions').selectAll().where('app_id', '=', appId).orderBy('id').execute();
      return rows.map(toRecord);
    },

    async update(appId, id, patch) {
      const row = await db
        .updateTable('ces_sessions')
        .set({
          updated_at: patch.updatedAt,
          ...(patch.ended !== undefined ? { ended: patch.ended ? 1 : 0 } : {}),
          ...(patch.variables !== undefined ? { variables: toJsonText(patch.variables) } : {}),
          ...(patch.turnCount !== undefined ? { turn_count: patch.turnCount } : {}),
        })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },
  };
}
