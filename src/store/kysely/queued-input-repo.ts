import type { Kysely, Selectable } from 'kysely';
import type { ContentPart, QueuedInputRecord, TurnOptions } from '../../domain/records.ts';
import type { QueuedInputRepo } from '../store.ts';
import type { Database, QueuedInputsTable } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';

function toRecord(row: Selectable<QueuedInputsTable>): QueuedInputRecord {
  return {
    id: row.id,
    appId: row.app_id,
    conversationId: row.conversation_id,
    content: fromJsonText<ContentPart[]>(row.content),
    options: fromJsonText<TurnOptions>(row.options),
    createdAt: row.created_at,
  };
}

export function createQueuedInputRepo(db: Kysely<Database>): QueuedInputRepo {
  return {
    async insert(input) {
      await insertOrDuplicate('queued_inputs', () =>
        db
          .insertInto('queued_inputs')
          .values({
            id: input.id,
            app_id: input.appId,
            conversation_id: input.conversationId,
            content: toJsonText(input.content),
            options: toJsonText(input.options),
            created_at: input.createdAt,
          })
          .execute(),
      );
    },

    async listByConversation(conversationId) {
      // seq is insertion order, which is the order the user sent the inputs in.
      const rows = await db
        .selectFrom('queued_inputs')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .orderBy('seq')
        .execute();
      return rows.map(toRecord);
    },

    async delete(id) {
      const result = await db.deleteFrom('queued_inputs').where('id', '=', id).executeTakeFirst();
      return (result.numDeletedRows ?? 0n) > 0n;
    },
  };
}
