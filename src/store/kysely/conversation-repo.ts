import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ConversationRecord } from '../../domain/records.ts';
import type { ConversationPatch, ConversationRepo } from '../store.ts';
import { purgeConversationRows } from './lifecycle-repo.ts';
import type { ConversationsTable, Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';
import { decodeOptionalCursor, fetchSize, isObject, toPage } from './pagination.ts';

function toRecord(row: Selectable<ConversationsTable>): ConversationRecord {
  return {
    id: row.id,
    appId: row.app_id,
    agentId: row.agent_id,
    agentName: row.agent_name,
    version: row.version,
    activeTurnId: row.active_turn_id,
    headTurnId: row.head_turn_id,
    metadata: fromJsonText<Record<string, string>>(row.metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

interface ConversationCursor {
  createdAt: string;
  id: string;
}

function isConversationCursor(value: unknown): value is ConversationCursor {
  return isObject(value) && typeof value.createdAt === 'string' && typeof value.id === 'string';
}

/** The columns a patch sets: `undefined` means "leave as is"; `null` clears the column. */
function toChanges(patch: ConversationPatch): Updateable<ConversationsTable> {
  const changes: Updateable<ConversationsTable> = { updated_at: patch.updatedAt };
  if (patch.activeTurnId !== undefined) changes.active_turn_id = patch.activeTurnId;
  if (patch.headTurnId !== undefined) changes.head_turn_id = patch.headTurnId;
  return changes;
}

export function createConversationRepo(db: Kysely<Database>): ConversationRepo {
  return {
    async insert(conversation) {
      await insertOrDuplicate('conversations', () =>
        db
          .insertInto('conversations')
          .values({
            id: conversation.id,
            app_id: conversation.appId,
            agent_id: conversation.agentId,
            agent_name: conversation.agentName,
            version: conversation.version,
            active_turn_id: conversation.activeTurnId,
            head_turn_id: conversation.headTurnId,
            metadata: toJsonText(conversation.metadata),
            created_at: conversation.createdAt,
            updated_at: conversation.updatedAt,
          })
          .execute(),
      );
    },

    async list(filter, page) {
      const before = decodeOptionalCursor(page.cursor, isConversationCursor);
      let query = db.selectFrom('conversations').selectAll().where('app_id', '=', filter.appId);
      if (filter.agentName !== undefined) query = query.where('agent_name', '=', filter.agentName);
      if (before) {
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '<', before.createdAt),
            eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
          ]),
        );
      }
      const rows = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(fetchSize(page.limit))
        .execute();
      return toPage(rows.map(toRecord), page.limit, (conversation) => ({
        createdAt: conversation.createdAt,
        id: conversation.id,
      }));
    },

    async get(appId, id) {
      const row = await db
        .selectFrom('conversations')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async compareAndSet(id, expectedVersion, patch) {
      // A single conditional UPDATE is the whole CAS: concurrent writers (even in other
      // processes) serialise on the row, and only the first still sees `expectedVersion`.
      const row = await db
        .updateTable('conversations')
        .set((eb) => ({ ...toChanges(patch), version: eb('version', '+', 1) }))
        .where('id', '=', id)
        .where('version', '=', expectedVersion)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async bump(appId, id, patch) {
      const row = await db
        .updateTable('conversations')
        .set((eb) => ({ ...toChanges(patch), version: eb('version', '+', 1) }))
        .where('id', '=', id)
        .where('app_id', '=', appId)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },

    async delete(appId, id) {
      return (await purgeConversationRows(db, appId, id)) !== undefined;
    },
  };
}
