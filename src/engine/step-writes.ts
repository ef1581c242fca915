import type { ItemRecord, LedgerEntryRecord, NewItem, TurnRecord, TurnStatus } from '../domain/records.ts';
import type { ConversationPatch, Repositories, TurnPatch } from '../store/store.ts';
import { bumpConversation, TurnSupersededError } from './conversation-version.ts';

/** What one model step writes: the turn's new state, the step's items and its ledger rows. */
export interface StepWrites {
  /** The turn's new status, step count, usage, finish reason… (`updatedAt` is the step's time). */
  patch: TurnPatch & { status: TurnStatus };
  items: readonly NewItem[];
  entries: readonly LedgerEntryRecord[];
}

/** A step's writes as stored: the turn as the step left it, and the step's items with their `seq`. */
export interface StepWritten {
  turn: TurnRecord;
  appended: ItemRecord[];
}

/** Whether the step ends the turn: the conversation then has no active turn. */
export function endsTurn(status: TurnStatus): boolean {
  return status === 'completed' || status === 'failed';
}

/**
 * How a step moves its conversation on: a step that pauses or ends the turn changes what the
 * conversation looks like (its version moves; an ended turn is no longer active), one that goes on
 * does not. Undefined when the conversation is left as it is.
 */
export function conversationPatchOf(step: StepWrites): ConversationPatch | undefined {
  if (step.patch.status === 'in_progress') return undefined;
  return { updatedAt: step.patch.updatedAt, ...(endsTurn(step.patch.status) ? { activeTurnId: null } : {}) };
}

/**
 * Writes one step of a run whose turn is stored and `in_progress` under its lease: the guarded
 * turn update (a run that lost the turn writes nothing), the items, the ledger rows, and the
 * conversation's version. Call inside a transaction.
 */
export async function writeStep(tx: Repositories, turn: TurnRecord, step: StepWrites): Promise<StepWritten> {
  const updated = await tx.turns.update(turn.id, ['in_progress'], step.patch, turn.leaseToken ?? undefined);
  if (!updated) throw new TurnSupersededError(turn.id);
  const appended = step.items.length > 0 ? await tx.items.append([...step.items]) : [];
  await writeEntries(tx, turn.id, step.entries);
  const conversation = conversationPatchOf(step);
  if (conversation) await bumpConversation(tx, turn.appId, turn.conversationId, conversation);
  return { turn: updated, appended };
}

/** A step's ledger rows; its server calls ran and their results commit now, so their claims are released. */
export async function writeEntries(
  tx: Repositories,
  turnId: string,
  entries: readonly LedgerEntryRecord[],
): Promise<void> {
  if (entries.length > 0) await tx.ledger.insert([...entries]);
  if (entries.some((entry) => entry.kind === 'server')) await tx.serverClaims.releaseTurn(turnId);
}
