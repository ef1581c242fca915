import { sql, type Kysely, type Selectable } from 'kysely';
import type { ConversationWithActiveTurn } from '../store.ts';
import { conversationFromRow } from './conversation-repo.ts';
import type { Database, TurnsTable } from './database-schema.ts';
import { QueryTemplate, type Arg } from './query-template.ts';
import { turnFromRow } from './turn-repo.ts';
import { callsOfJoinedRows, JOINED_LEDGER_COLUMNS } from './turn-with-calls.ts';

/** Every column of `turns`, named once so the joined read below can prefix them. */
const TURN_COLUMNS = [
  'id',
  'app_id',
  'conversation_id',
  'agent_id',
  'agent_version',
  'status',
  'options',
  'finish_reason',
  'error',
  'step_count',
  'usage',
  'created_at',
  'updated_at',
  'completed_at',
  'lease_token',
  'takeovers',
  'request_key',
] as const satisfies readonly (keyof TurnsTable)[];

// A column added to the table and not to the list above fails to compile here.
type MissingTurnColumn = Exclude<keyof TurnsTable, (typeof TURN_COLUMNS)[number]>;
const everyTurnColumn: [MissingTurnColumn] extends [never] ? true : MissingTurnColumn = true;
void everyTurnColumn;

const PREFIXED_TURN_COLUMNS = TURN_COLUMNS.map((column) => [column, `t_${column}` as const] as const);

const selectConversationWithActiveTurn = new QueryTemplate((db, arg: Arg<{ appId: string; id: string }>) =>
  db
    .selectFrom('conversations')
    .leftJoin('turns as t', 't.id', 'conversations.active_turn_id')
    .leftJoin('ledger_entries as l', 'l.turn_id', 't.id')
    .selectAll('conversations')
    .select(TURN_COLUMNS.map((column) => sql.ref(`t.${column}`).as(`t_${column}`)))
    .select(JOINED_LEDGER_COLUMNS)
    .where('conversations.app_id', '=', arg('appId'))
    .where('conversations.id', '=', arg('id'))
    .orderBy('l.created_at')
    .orderBy('l.call_index')
    .orderBy('l.id'),
);

/**
 * A conversation, its active turn and that turn's ledger rows in call order, in one statement
 * (left joins: a conversation without an active turn is one row of nulls on their side). A
 * request that answers a paused turn reads all three before it writes: one database round trip
 * instead of two, and one moment of the database instead of two.
 */
export async function readConversationWithActiveTurn(
  db: Kysely<Database>,
  appId: string,
  id: string,
): Promise<ConversationWithActiveTurn | undefined> {
  const { rows } = await selectConversationWithActiveTurn.execute(db, { appId, id });
  const first = rows[0];
  if (!first) return undefined;
  const conversation = conversationFromRow(first);
  if (first.t_id === null) return { conversation, active: undefined };
  const turn: Record<string, unknown> = {};
  for (const [column, prefixed] of PREFIXED_TURN_COLUMNS) turn[column] = first[prefixed];
  return {
    conversation,
    active: { turn: turnFromRow(turn as Selectable<TurnsTable>), calls: callsOfJoinedRows(rows) },
  };
}
