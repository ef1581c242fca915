import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ConversationRecord } from '../../domain/records.ts';
import type { ConversationPatch, ConversationRepo } from '../store.ts';
import { purgeConversationRows } from './lifecycle-repo.ts';
import type { ConversationsTable, Database } from './database-schema.ts';
import { insertOrDuplicate } from './duplicate-key.ts';
import { fromJsonText, toJsonText } from './json-text.ts';
import { decodeOptionalCursor, fetchSize, isObject, toPage } from './pagination.ts';
import { QueryTemplate, QueryTemplates } from './query-template.ts';

export function conversationFromRow(row: Selectable<ConversationsTable>): ConversationRecord {
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

const selectConversation = new QueryTemplate<{ appId: string; id: string }, Selectable<ConversationsTable>>((db, arg) =>
  db.selectFrom('conversations').selectAll().where('app_id', '=', arg('appId')).where('id', '=', arg('id')),
);

interface MoveOn {
  id: string;
  guard: string | number;
  changes: Updateable<ConversationsTable>;
}

const moveOnStatements = new QueryTemplates<MoveOn, Selectable<ConversationsTable>>();

/**
 * Applies `changes` and moves the version on by one, where the row is `id` and `guard` holds (the
 * version expected, or the app): the one write every change to a conversation makes.
 */
async function moveOn(
  db: Kysely<Database>,
  guard: 'version' | 'app_id',
  changes: Updateable<ConversationsTable>,
  id: string,
  value: string | number,
): Promise<Selectable<ConversationsTable> | undefined> {
  const columns = Object.keys(changes) as (keyof ConversationsTable)[];
  const template = moveOnStatements.of(
    `${guard}:${columns.join()}`,
    () =>
      new QueryTemplate((tx, arg) =>
        tx
          .updateTable('conversations')
          .set((eb) => ({
            ...Object.fromEntries(columns.map((column) => [column, arg((call) => call.changes[column])])),
            version: eb('version', '+', 1),
          }))
          .where('id', '=', arg('id'))
          .where(guard, '=', arg('guard'))
          .returningAll(),
      ),
  );
  return template.first(db, { id, guard: value, changes });
}

export function createConversationRepo(db: Kysely<Database>): Omit<ConversationRepo, 'getWithActiveTurn'> {
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
      return toPage(rows.map(conversationFromRow), page.limit, (conversation) => ({
        createdAt: conversation.createdAt,
        id: conversation.id,
      }));
    },

    async get(appId, id) {
      const row = await selectConversation.first(db, { appId, id });
      return row && conversationFromRow(row);
    },

    async compareAndSet(id, expectedVersion, patch) {
      // A single conditional UPDATE is the whole CAS: concurrent writers (even in other
      // processes) serialise on the row, and only the first still sees `expectedVersion`.
      const row = await moveOn(db, 'version', toChanges(patch), id, expectedVersion);
      return row && conversationFromRow(row);
    },

    async bump(appId, id, patch) {
      const row = await moveOn(db, 'app_id', toChanges(patch), id, appId);
      return row && conversationFromRow(row);
    },

    async delete(appId, id) {
      return (await purgeConversationRows(db, appId, id)) !== undefined;
    },
  };
}
