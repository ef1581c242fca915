import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ItemPayload, ItemRecord, NewItem } from '../../domain/records.ts';
import type { ItemRepo } from '../store.ts';
import { atomically } from './atomically.ts';
import type { Database, ItemsTable } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';
import { decodeOptionalCursor, fetchSize, isObject, toPage } from './pagination.ts';
import { insertRows } from './query-template.ts';

interface ItemCursor {
  seq: number;
}

function isItemCursor(value: unknown): value is ItemCursor {
  return isObject(value) && typeof value.seq === 'number' && Number.isSafeInteger(value.seq);
}

function toRecord(row: Selectable<ItemsTable>): ItemRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    turnId: row.turn_id,
    groupId: row.group_id,
    payload: fromJsonText<ItemPayload>(row.payload),
    createdAt: row.created_at,
    // Postgres bigint arrives as a string (pg) or bigint (PGlite).
    seq: Number(row.seq),
  };
}

/** Rows per INSERT statement: a step's items, a results message, a fork's copy in a few statements. */
const MAX_ROWS_PER_INSERT = 100;

function toRow(item: NewItem): Insertable<ItemsTable> {
  return {
    id: item.id,
    conversation_id: item.conversationId,
    turn_id: item.turnId,
    group_id: item.groupId,
    type: item.payload.type,
    payload: toJsonText(item.payload),
    created_at: item.createdAt,
  };
}

/**
 * Inserts `items` in one statement; `seq` must follow their order. Both databases number the
 * rows of one VALUES list in its order (SQLite's rowids, PostgreSQL's sequence as the rows are
 * read), but SQL promises no order for RETURNING, so the rows are matched by id and the order is
 * checked: were it ever broken, the append fails (and its transaction rolls back) rather than
 * store a transcript out of order. Call inside a transaction.
 */
async function insertInOrder(tx: Kysely<Database>, items: readonly NewItem[]): Promise<ItemRecord[]> {
  const rows = await insertOrDuplicate('items', () =>
    insertRows<'items', { id: string; seq: number | string | bigint }>(tx, 'items', items.map(toRow), ['id', 'seq']),
  );
  const seqs = new Map(rows.map((row) => [row.id, Number(row.seq)]));
  const appended = items.map((item) => ({ ...item, seq: seqs.get(item.id) ?? Number.NaN }));
  if (!appended.every((item, index) => index === 0 || item.seq > appended[index - 1]!.seq))
    throw new Error(
      `Items ${items.map((item) => item.id).join(', ')} were numbered out of order; nothing was appended.`,
    );
  return appended;
}

export function createItemRepo(db: Kysely<Database>): ItemRepo {
  return {
    async append(items) {
      if (items.length === 0) return [];
      return atomically(db, async (tx) => {
        const appended: ItemRecord[] = [];
        for (let start = 0; start < items.length; start += MAX_ROWS_PER_INSERT) {
          appended.push(...(await insertInOrder(tx, items.slice(start, start + MAX_ROWS_PER_INSERT))));
        }
        return appended;
      });
    },

    async list(conversationId, page) {
      const after = decodeOptionalCursor(page.cursor, isItemCursor);
      let query = db.selectFrom('items').selectAll().where('conversation_id', '=', conversationId);
      if (after) query = query.where('seq', '>', after.seq);
      const rows = await query.orderBy('seq').limit(fetchSize(page.limit)).execute();
      return toPage(rows.map(toRecord), page.limit, (item) => ({ seq: item.seq }));
    },

    async listWindow(conversationId, limit) {
      if (limit < 1) return [];
      // Walk the (conversation_id, seq) index backwards from the end: reads `limit` rows
      // however long the history is.
      const rows = await db
        .selectFrom('items')
        .select(['seq', 'group_id', 'payload'])
        .where('conversation_id', '=', conversationId)
        .orderBy('seq', 'desc')
        .limit(limit)
        .execute();
      return rows
        .map((row) => ({
          seq: Number(row.seq),
          groupId: row.group_id,
          payload: fromJsonText<ItemPayload>(row.payload),
        }))
        .reverse();
    },

    async listAfterSeq(conversationId, afterSeq, limit) {
      const rows = await db
        .selectFrom('items')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map(toRecord);
    },

    async listByGroup(groupId) {
      const rows = await db.selectFrom('items').selectAll().where('group_id', '=', groupId).orderBy('seq').execute();
      return rows.map(toRecord);
    },

    async listByTurn(turnId) {
      const rows = await db.selectFrom('items').selectAll().where('turn_id', '=', turnId).orderBy('seq').execute();
      return rows.map(toRecord);
    },
  };
}
