import type { ConversationRecord, TurnRecord } from '../domain/records.ts';
import { bumpConversation } from './conversation-version.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import type { RunOptions, UserInput } from './engine-types.ts';
import { toNewItems } from './input-items.ts';
import { refusing, RunOpening, type OpeningWriter } from './run-opening.ts';
import { endsTurn, writeEntries } from './step-writes.ts';

/** What a new turn starts from. */
export interface TurnStart {
  conversation: ConversationRecord;
  agentId: string;
  /** The agent version the turn pins: a paused turn resumes with it, whatever edits come later. */
  agentVersion: number;
  /** Usually one input; queued inputs start one turn together. The last one's settings apply. */
  inputs: readonly UserInput[];
  /** Queued inputs this turn consumes, deleted with its start. */
  queuedIds: readonly string[];
  onAccepted: RunOptions['onAccepted'] | undefined;
  /** The conversation is written in the same transaction (refused input leaves nothing behind). */
  isNewConversation: boolean;
  /** The Idempotency-Key of the request starting the turn (see `TurnRecord.requestKey`). */
  requestKey: string | null;
}

/**
 * Creates a turn and appends its input, under compare-and-set on the conversation's version, in
 * one transaction with the face's own record of the request (`onAccepted`).
 */
export async function startTurn(context: EngineContext, start: TurnStart): Promise<TurnRecord> {
  const opening = openTurn(context, start);
  await opening.writeNow();
  return opening.turn;
}

/** The start of a turn, not yet written (see `RunOpening`): written by `startTurn`, or with the turn's first step. */
export function openTurn(context: EngineContext, start: TurnStart): RunOpening {
  const { conversation, inputs } = start;
  const now = nowIso(context);
  const last = inputs[inputs.length - 1];
  const turn: TurnRecord = {
    id: context.newId('turn'),
    appId: conversation.appId,
    conversationId: conversation.id,
    agentId: start.agentId,
    agentVersion: start.agentVersion,
    status: 'in_progress',
    options: last?.options ?? { tools: [] },
    finishReason: null,
    error: null,
    stepCount: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    leaseToken: context.newId('lease'),
    takeovers: 0,
    requestKey: start.requestKey,
  };
  const items = inputs.flatMap((input) => toNewItems(context, turn, input.items, now));
  // With the first step folded in, the turn is written as the step leaves it, the conversation
  // moved on once, and the input and the step's items appended together.
  const write: OpeningWriter = async (tx, step) => {
    const ends = step !== null && endsTurn(step.patch.status);
    await refusing(async () => {
      if (start.isNewConversation) await tx.conversations.insert(conversation);
      await bumpConversation(
        tx,
        conversation.appId,
        conversation.id,
        { activeTurnId: ends ? null : turn.id, headTurnId: turn.id, updatedAt: step?.patch.updatedAt ?? now },
        conversation.version,
      );
    });
    const written: TurnRecord = step ? { ...turn, ...step.patch } : turn;
    await tx.turns.insert(written);
    const appended = await tx.items.append([...items, ...(step?.items ?? [])]);
    if (step) await writeEntries(tx, turn.id, step.entries);
    for (const id of start.queuedIds) await tx.queuedInputs.delete(id);
    const inputItems = appended.slice(0, items.length);
    if (start.onAccepted) await start.onAccepted(tx, { turn, inputItems });
    return { turn: written, appended: appended.slice(items.length) };
  };
  return new RunOpening(context.store, turn, items, write, undefined, null, conversation.version);
}
