import type { Kysely, Selectable } from 'kysely';
import type { AuditAction, AuditEventRecord, RowCounts } from '../../domain/lifecycle.ts';
import type { ContentPart, ItemPayload } from '../../domain/records.ts';
import type { LifecycleRepo } from '../store.ts';
import { atomically } from './atomically.ts';
import type { AuditEventsTable, Database } from './database-schema.ts';
import { fromJsonText, toJsonText } from './json-text.ts';
import { responseFromRow } from './response-repo.ts';
import { turnFromRow } from './turn-repo.ts';
import { decodeOptionalCursor, fetchSize, isObject, toPage } from './pagination.ts';

/** What replaces a call's arguments and result once a retention policy removed them. */
export const REMOVED_TOOL_DATA: ContentPart[] = [{ type: 'text', text: '[removed by the retention policy]' }];

function toAuditRecord(row: Selectable<AuditEventsTable>): AuditEventRecord {
  return {
    id: row.id,
    appId: row.app_id,
    actor: row.actor,
    action: row.action as AuditAction,
    target: row.target,
    counts: fromJsonText<RowCounts>(row.counts),
    details: fromJsonText<AuditEventRecord['details']>(row.details),
    createdAt: row.created_at,
  };
}

interface AuditCursor {
  createdAt: string;
  id: string;
}

function isAuditCursor(value: unknown): value is AuditCursor {
  return isObject(value) && typeof value.createdAt === 'string' && typeof value.id === 'string';
}

function count(result: { numDeletedRows?: bigint } | undefined): number {
  return Number(result?.numDeletedRows ?? 0n);
}

/**
 * Deletes a conversation and every row that belongs to it, in one transaction (the caller's, when
 * inside one). Returns the rows removed by table, or undefined when it does not exist in the app.
 * Idempotency records go when they can be tied to it: the key that started one of its turns or
 * answered one of its calls, or a stored response that names it (linked when the key completed,
 * `idempotency_key_conversations`), with their links.
 */
export async function purgeConversationRows(
  db: Kysely<Database>,
  appId: string,
  id: string,
): Promise<RowCounts | undefined> {
  return atomically(db, async (tx) => {
    // The conversation row goes first: the app-scoped delete is the existence check, and on
    // Postgres it row-locks the conversation, so a concurrent writer's deferred foreign key
    // check on a new child row waits for this commit and then fails instead of leaving an
    // orphan. Foreign keys are deferred, so the children may follow in the same transaction.
    const deleted = await tx
      .deleteFrom('conversations')
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (count(deleted) === 0) return undefined;
    const counts: RowCounts = { conversations: 1 };
    const note = (table: string, result: { numDeletedRows?: bigint } | undefined) => {
      const removed = count(result);
      if (removed > 0) counts[table] = removed;
    };
    const turnIds = tx.selectFrom('turns').select('id').where('conversation_id', '=', id);
    // The keys tied to the conversation: those that started one of its turns or answered one of
    // its calls, and those whose stored response names it (linked when they completed). One IN
    // over a UNION ALL, not an OR of three: each side is an index lookup, and the keys are then
    // found by primary key, where an OR would make the planner walk every key of the app.
    const tiedKeys = tx
      .selectFrom('turns')
      .select('request_key as key')
      .where('conversation_id', '=', id)
      .where('request_key', 'is not', null)
      .unionAll(
        tx
          .selectFrom('ledger_entries')
          .select('idempotency_key as key')
          .where('conversation_id', '=', id)
          .where('idempotency_key', 'is not', null),
      )
      .unionAll(
        // By the links' (app_id, conversation_id, key) index: no stored response is read.
        tx
          .selectFrom('idempotency_key_conversations')
          .select('key')
          .where('app_id', '=', appId)
          .where('conversation_id', '=', id),
      );
    note(
      'idempotency_keys',
      await tx
        .deleteFrom('idempotency_keys')
        .where('app_id', '=', appId)
        .where('key', 'in', tiedKeys)
        .executeTakeFirst(),
    );
    // The links of the keys just deleted (to this conversation and any other their response
    // named), found the same way: the links, turns and ledger entries are all still there.
    note(
      'idempotency_key_conversations',
      await tx
        .deleteFrom('idempotency_key_conversations')
        .where('app_id', '=', appId)
        .where('key', 'in', tiedKeys)
        .executeTakeFirst(),
    );
    note(
      'server_call_claims',
      await tx.deleteFrom('server_call_claims').where('turn_id', 'in', turnIds).executeTakeFirst(),
    );
    // Each by its conversation_id index; turns last of the children, since items, ledger
    // entries and responses also reference them.
    for (const table of ['ces_sessions', 'responses', 'ledger_entries', 'items', 'queued_inputs', 'turns'] as const) {
      note(table, await tx.deleteFrom(table).where('conversation_id', '=', id).executeTakeFirst());
    }
    return counts;
  });
}

export function createLifecycleRepo(db: Kysely<Database>): LifecycleRepo {
  return {
    purgeConversation: (appId, id) => purgeConversationRows(db, appId, id),

    async listTurns(conversationId) {
      const rows = await db
        .selectFrom('turns')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(turnFromRow);
    },

    async listResponses(conversationId) {
      const rows = await db
        .selectFrom('responses')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .orderBy('input_first_seq')
        .execute();
      return rows.map(responseFromRow);
    },

    async insertAudit(event) {
      await db
        .insertInto('audit_events')
        .values({
          id: event.id,
          app_id: event.appId,
          actor: event.actor,
          action: event.action,
          target: event.target,
          counts: toJsonText(event.counts),
          details: toJsonText(event.details),
          created_at: event.createdAt,
        })
        .execute();
    },

    async listAudit(appId, page) {
      const before = decodeOptionalCursor(page.cursor, isAuditCursor);
      let query = db.selectFrom('audit_events').selectAll().where('app_id', '=', appId);
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
      return toPage(rows.map(toAuditRecord), page.limit, (event) => ({ createdAt: event.createdAt, id: event.id }));
    },

    async listAppIds() {
      const rows = await db.selectFrom('apps').select('id').where('deleted_at', 'is', null).orderBy('id').execute();
      return rows.map((row) => row.id);
    },

    async listIdleConversations(scope, before, limit) {
      let query = db
        .selectFrom('conversations as c')
        .select('c.id')
        .where('c.app_id', '=', scope.appId)
        .where('c.updated_at', '<', before)
        .where('c.active_turn_id', 'is', null)
        // A conversation with calls still pending waits for them to resolve or expire.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('ledger_entries as l')
                .select('l.id')
                .whereRef('l.conversation_id', '=', 'c.id')
                .where('l.state', '=', 'pending'),
            ),
          ),
        );
      if (scope.agentNames) query = query.where('c.agent_name', 'in', scope.agentNames);
      if (scope.exceptAgentNames && scope.exceptAgentNames.length > 0)
        query = query.where('c.agent_name', 'not in', scope.exceptAgentNames);
      const rows = await query.orderBy('c.updated_at').orderBy('c.id').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    async removeToolData(scope, before, limit, at) {
      return atomically(db, async (tx) => {
        let query = tx
          .selectFrom('ledger_entries')
          .select(['id', 'turn_id', 'result'])
          .where('app_id', '=', scope.appId)
          .where('state', '!=', 'pending')
          .where('updated_at', '<', before)
          .where('tool_data_removed_at', 'is', null);
        if (scope.agentNames) query = query.where('agent_name', 'in', scope.agentNames);
        if (scope.exceptAgentNames && scope.exceptAgentNames.length > 0)
          query = query.where('agent_name', 'not in', scope.exceptAgentNames);
        const rows = await query.orderBy('updated_at').orderBy('id').limit(limit).execute();
        if (rows.length === 0) return { calls: 0, items: 0 };
        const callIds = new Set(rows.map((row) => row.id));
        for (const row of rows) {
          await tx
            .updateTable('ledger_entries')
            .set({
              arguments: toJsonText(null),
              result: row.result === null ? null : toJsonText(REMOVED_TOOL_DATA),
              tool_data_removed_at: at,
            })
            .where('id', '=', row.id)
            .execute();
        }
        // The transcript holds the same arguments and results: they go too (the one update of items).
        const items = await tx
          .selectFrom('items')
          .select(['id', 'payload'])
          .where('turn_id', 'in', [...new Set(rows.map((row) => row.turn_id))])
          .where('type', 'in', ['function_call', 'function_call_output'])
          .execute();
        let changed = 0;
        for (const item of items) {
          const payload = fromJsonText<ItemPayload>(item.payload);
          let next: ItemPayload | null = null;
          if (payload.type === 'function_call' && callIds.has(payload.callId)) next = { ...payload, arguments: 'null' };
          if (payload.type === 'function_call_output' && callIds.has(payload.callId))
            next = { ...payload, output: REMOVED_TOOL_DATA };
          if (!next) continue;
          await tx
            .updateTable('items')
            .set({ payload: toJsonText(next) })
            .where('id', '=', item.id)
            .execute();
          changed += 1;
        }
        return { calls: rows.length, items: changed };
      });
    },
  };
}
