import type { ConversationRecord, TurnRecord } from '../domain/records.ts';
import type { EngineContext } from './engine-context.ts';
import type { EngineEventListener } from './events.ts';
import { conversationBusy } from './engine-errors.ts';
import { blocksTurn } from './pending-calls.ts';
import type { TurnOutcome } from './turn-runner.ts';

/**
 * The turn a request with Idempotency-Key `key` started, if the conversation's latest turn is
 * it. Asked only for a retry that took the key over from a run that died with its replica
 * (`SubmissionActor.retriesDeadRun`): the first run may have started the turn already, which
 * another replica then took over.
 */
export async function turnStartedBy(
  context: EngineContext,
  conversation: ConversationRecord,
  activeTurn: TurnRecord | null,
  key: string | null,
): Promise<TurnRecord | undefined> {
  if (key === null) return undefined;
  if (activeTurn) return activeTurn.requestKey === key ? activeTurn : undefined;
  if (!conversation.headTurnId) return undefined;
  const head = await context.store.turns.get(conversation.headTurnId);
  return head?.requestKey === key ? head : undefined;
}

/**
 * A retried request rejoins the turn its first run started instead of sending the same message
 * again: it waits while the turn runs (on whichever replica), then answers what the first run
 * would have. Past the wait it is `409 thread_busy`, which the client retries with the same key.
 */
export async function rejoinTurn(
  context: EngineContext,
  turn: TurnRecord,
  listener: EngineEventListener | undefined,
): Promise<TurnOutcome> {
  // A streamed retry opens its stream as the first attempt did; its deltas are gone, so the
  // face's closing event carries the whole reply.
  listener?.({ type: 'turn.started', turn });
  const deadline = Date.now() + Math.max(30_000, context.settings.staleTurnSeconds * 2_000);
  let current = turn;
  while (current.status === 'in_progress') {
    if (Date.now() > deadline) throw conversationBusy(turn.conversationId, turn.id);
    await new Promise((resolve) => setTimeout(resolve, 250));
    current = (await context.store.turns.get(turn.id)) ?? current;
  }
  return storedOutcome(context, current);
}

/** A turn's outcome read back from the store: its last assistant step, and its pending calls. */
async function storedOutcome(context: EngineContext, turn: TurnRecord): Promise<TurnOutcome> {
  let replyGroupId = '';
  let text: string | null = null;
  for (const item of await context.store.items.listByTurn(turn.id)) {
    const { payload } = item;
    const fromModel = payload.type === 'function_call' || (payload.type === 'message' && payload.role === 'assistant');
    if (!fromModel) continue;
    if (item.groupId !== replyGroupId) {
      replyGroupId = item.groupId;
      text = null;
    }
    if (payload.type === 'message') {
      const said = payload.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      text = said === '' ? text : (text ?? '') + said;
    }
  }
  const pendingCalls =
    turn.status === 'requires_action'
      ? (await context.store.ledger.listByTurn(turn.id)).filter(blocksTurn).sort((a, b) => a.callIndex - b.callIndex)
      : [];
  return { turn, replyGroupId, text, pendingCalls };
}
