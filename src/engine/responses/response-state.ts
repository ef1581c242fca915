import type {
  AgentDefinition,
  ItemRecord,
  LedgerEntryRecord,
  ResponseRecord,
  TurnRecord,
} from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import { blocksTurn } from '../pending-calls.ts';
import {
  isHiddenItem,
  loadServerCalls,
  pendingIdsByKind,
  withLedgerResults,
  type RenderItem,
  type ServerCallIndex,
} from './server-call-index.ts';

/** What a response consists of now: its output range and the state of its turn. */
export interface ResponseState {
  record: ResponseRecord;
  turn: TurnRecord;
  /** The response's output items, hidden ones removed, with server results read from the ledger. */
  output: RenderItem[];
  /** The server-executed calls among them, for rendering. */
  serverCalls: ServerCallIndex;
  /** The response that continued this one's turn (after a pause), if any. */
  continuation: ResponseRecord | null;
  /** Calls the client answers (kind `client`), never server calls or approvals. */
  pendingCallIds: string[];
  /** Server calls waiting for a person's decision; the turn resumes by itself once they are decided. */
  pendingApprovalIds: string[];
  /** The agent version the response's turn runs with (faces read their settings there); null if it is gone. */
  agent: AgentDefinition | null;
}

/** The agent version a turn pinned, or null when it can no longer be read. */
export type TurnAgent = (turn: TurnRecord) => Promise<AgentDefinition | null>;

const OUTPUT_PAGE = 200;

/**
 * Reads a response as it stands. Its output is the conversation's items after its input, up to
 * the next response's input; a paused turn's pending calls come from the ledger.
 */
export async function loadResponseState(
  store: Pick<Repositories, 'turns' | 'responses' | 'items' | 'ledger'>,
  record: ResponseRecord,
  agentOf: TurnAgent,
): Promise<ResponseState> {
  const [turn, next] = await Promise.all([
    store.turns.get(record.turnId),
    store.responses.nextInConversation(record.conversationId, record.inputLastSeq),
  ]);
  if (!turn) throw new Error(`turn ${record.turnId} of response ${record.id} is missing`);
  const stored: ItemRecord[] = [];
  for (let after = record.inputLastSeq; ;) {
    const page = await store.items.listAfterSeq(record.conversationId, after, OUTPUT_PAGE);
    const inRange = next ? page.filter((item) => item.seq < next.inputFirstSeq) : page;
    stored.push(...inRange.filter((item) => !isHiddenItem(item)));
    if (inRange.length < page.length || page.length < OUTPUT_PAGE) break;
    after = page[page.length - 1]?.seq ?? after;
  }
  const continuation = next && next.turnId === record.turnId ? next : null;
  const paused = !continuation && turn.status === 'requires_action';
  const ledger: LedgerEntryRecord[] = paused ? await store.ledger.listByTurn(turn.id) : [];
  const [serverCalls, agent] = await Promise.all([loadServerCalls(store, stored, ledger), agentOf(turn)]);
  const pending = pendingIdsByKind(ledger.filter(blocksTurn));
  return {
    record,
    turn,
    output: withLedgerResults(stored, serverCalls),
    serverCalls,
    continuation,
    pendingCallIds: pending.clientCallIds,
    pendingApprovalIds: pending.approvalIds,
    agent,
  };
}

/** Whether the response's turn still runs (its view is `in_progress`). */
export function isInProgress(state: ResponseState): boolean {
  return !state.continuation && state.turn.status === 'in_progress';
}
