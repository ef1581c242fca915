import type { Kysely, Selectable } from 'kysely';
import type { JsonObject, ResponseRecord, TurnUsage } from '../../domain/records.ts';
import type { ResponseRepo } from '../store.ts';
import type { Database, ResponsesTable } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';

export function responseFromRow(row: Selectable<ResponsesTable>): ResponseRecord {
  return {
    id: row.id,
    appId: row.app_id,
    conversationId: row.conversation_id,
    turnId: row.turn_id,
    previousResponseId: row.previous_response_id,
    // Postgres bigint arrives as a string (pg) or bigint (PGlite).
    inputFirstSeq: Number(row.input_first_seq),
    inputLastSeq: Number(row.input_last_seq),
    usageBefore: fromJsonText<TurnUsage>(row.usage_before),
    echo: fromJsonText<JsonObject>(row.echo),
    stored: row.stored === 1,
    ownsConversation: row.owns_conversation === 1,
    createdAt: row.created_at,
  };
}

export function createResponseRepo(db: Kysely<Database>): ResponseRepo {
  return {
    async insert(response) {
      await insertOrDuplicate('responses', () =>
        db
          .insertInto('responses')
          .values({
            id: response.id,
            app_id: response.appId,
            conversation_id: response.conversationId,
            turn_id: response.turnId,
            previous_response_id: response.previousResponseId,
            input_first_seq: response.inputFirstSeq,
            input_last_seq: response.inputLastSeq,
            usage_before: toJsonText(response.usageBefore),
            echo: toJsonText(response.echo),
            stored: response.stored ? 1 : 0,
            owns_conversation: response.ownsConversation ? 1 : 0,
            created_at: response.createdAt,
          })
          .execute(),
      );
    },

    async get(appId, id) {
      const row = await db
        .selectFrom('responses')
        .selectAll()
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && responseFromRow(row);
    },

    async nextInConversation(conversationId, afterSeq) {
      // One step forward on the (conversation_id, input_first_seq) index.
      const row = await db
        .selectFrom('responses')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .where('input_first_seq', '>', afterSeq)
        .orderBy('input_first_seq')
        .limit(1)
        .executeTakeFirst();
      return row && responseFromRow(row);
    },

    async latestInConversation(conversationId) {
      const row = await db
        .selectFrom('responses')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .orderBy('input_first_seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && responseFromRow(row);
    },

    async countInConversation(conversationId) {
      const row = await db
        .selectFrom('responses')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('conversation_id', '=', conversationId)
        .executeTakeFirstOrThrow();
      // count(*) is bigint on Postgres (a string through pg).
      return Number(row.n);
    },

    async countStoredInConversation(conversationId) {
      const row = await db
        .selectFrom('responses')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('conversation_id', '=', conversationId)
        .where('stored', '=', 1)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async hide(appId, id) {
      const result = await db
        .updateTable('responses')
        .set({ stored: 0, owns_conversation: 0 })
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return (result.numUpdatedRows ?? 0n) > 0n;
    },
    async delete(appId, id) {
      const result = await db
        .deleteFrom('responses')
        .where('app_id', '=', appId)
        .where('id', '=', id)
        .executeTakeFirst();
      return (result.numDeletedRows ?? 0n) > 0n;
    },

    async listUnstoredBefore(before, limit) {
      if (limit < 1) return [];
      const rows = await db
        .selectFrom('responses')
        .selectAll()
        .where('stored', '=', 0)
        .where('owns_conversation', '=', 1)
        .where('created_at', '<', before)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(responseFromRow);
    },
  };
}
