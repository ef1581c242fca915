import type { ConversationRecord } from '../domain/records.ts';
import type { EngineContext } from './engine-context.ts';
import type { ConversationState, ConversationStatus } from './engine-types.ts';
import { blocksTurn } from './pending-calls.ts';

/** The conversation with its derived status: `pending` comes from the ledger, never a stored flag. */
export async function readConversationState(
  context: EngineContext,
  conversation: ConversationRecord,
): Promise<ConversationState> {
  const active = conversation.activeTurnId
    ? await context.store.turns.getWithCalls(conversation.activeTurnId)
    : undefined;
  const activeTurn = active?.turn ?? null;
  const pendingCalls = active ? active.calls.filter(blocksTurn) : [];
  const status: ConversationStatus =
    pendingCalls.length > 0 ? 'pending' : activeTurn?.status === 'in_progress' ? 'running' : 'idle';
  return { conversation, status, activeTurn, pendingCalls };
}
