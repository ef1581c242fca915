import type { Kysely } from 'kysely';
import type { ConversationWithActiveTurn } from '../store.ts';
import { conversationFromRow } from './conversation-repo.ts';
import type { Database, TurnsTable } from './database-schema.ts';
import { joinedColumns } from './joined-columns.ts';
import { QueryTemplate, type Arg } from './query-template.ts';
import { turnFromRow } from './turn-repo.ts';
import { callsOfJoinedRows, JOINED_LEDGER } from './turn-with-calls.ts';

/** The columns of `turns`, every one, for the joined read below. */
const JOINED_TURN = joinedColumns<TurnsTable>()('t', [
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
]);

const selectConversationWithActiveTurn = new QueryTemplate((db, arg: Arg<{ appId: string; id: string }>) =>
  db
    .selectFrom('conversations')
    .leftJoin('turns as t', 't.id', 'conversations.active_turn_id')
    .leftJoin('ledger_entries as l', 'l.turn_id', 't.id')
    .selectAll('conversations')
    .select(JOINED_TURN.selection)
    .select(JOINED_LEDGER.selection)
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
  if (JOINED_TURN.isAbsent(first)) return { conversation, active: undefined };
  return { conversation, active: { turn: turnFromRow(JOINED_TURN.rowOf(first)), calls: callsOfJoinedRows(rows) } };
}
