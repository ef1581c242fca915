import { close } from './ledger/ledger-transitions.ts';
import { interruptedCallItems, withUnknownOutcome } from './interrupted-calls.ts';
import type { ItemRecord, LedgerEntryRecord, NewItem, TurnError, TurnRecord } from '../domain/records.ts';
import type { Repositories } from '../store/store.ts';
import { bumpConversation } from './conversation-version.ts';
import { nowIso, type EngineContext } from './engine-context.ts';

/**
 * Appends a `function_call_output` for every resolved client call of the turn that has none yet,
 * in call order, as one group: the model sees a parallel set answered together. Used on resume,
 * cancel, expiry and failure alike, which is what keeps every transcript valid.
 */
export async function writeMissingOutputs(
  context: EngineContext,
  tx: Repositories,
  turn: TurnRecord,
  entries: readonly LedgerEntryRecord[],
): Promise<ItemRecord[]> {
  const existing = await tx.items.listByTurn(turn.id);
  const answered = new Set(
    existing.flatMap((item) => (item.payload.type === 'function_call_output' ? [item.payload.callId] : [])),
  );
  const outputs = missingOutputs(context, turn, entries, answered, nowIso(context));
  return outputs.length > 0 ? tx.items.append(outputs) : [];
}

/** The outputs `writeMissingOutputs` appends, given the calls whose output the transcript has (`answered`). */
export function missingOutputs(
  context: EngineContext,
  turn: TurnRecord,
  entries: readonly LedgerEntryRecord[],
  answered: ReadonlySet<string>,
  createdAt: string,
): NewItem[] {
  const groupId = context.newId('msg');
  return [...entries]
    .filter((entry) => entry.state !== 'pending' && !answered.has(entry.id))
    .sort((a, b) => (a.createdAt === b.createdAt ? a.callIndex - b.callIndex : a.createdAt < b.createdAt ? -1 : 1))
    .map((entry) => ({
      id: context.newId('item'),
      conversationId: turn.conversationId,
      turnId: turn.id,
      groupId,
      createdAt,
      payload: {
        type: 'function_call_output' as const,
        callId: entry.id,
        name: entry.toolName,
        output: entry.result ?? [],
        isError: entry.isError,
        synthetic: entry.state === 'expired' || entry.state === 'cancelled',
      },
    }));
}

/**
 * Server calls claimed but never committed (their process died mid-call), when the turn ends
 * rather than being taken over: each is recorded as a failed call whose outcome is unknown, with
 * its call item, so the conversation (and whoever reads the ledger) knows it may have run. The
 * claims are released.
 */
async function recordUnknownOutcomes(
  context: EngineContext,
  tx: Repositories,
  turn: TurnRecord,
  entries: readonly LedgerEntryRecord[],
  now: string,
): Promise<LedgerEntryRecord[]> {
  const claimed = await tx.serverClaims.listByTurn(turn.id);
  if (claimed.length === 0) return [];
  const known = new Set(entries.map((entry) => entry.id));
  const unknown = claimed.filter((entry) => !known.has(entry.id)).map((entry) => withUnknownOutcome(entry, now));
  if (unknown.length > 0) {
    await tx.ledger.insert(unknown);
    await tx.items.append(interruptedCallItems(context, turn, unknown, context.newId('msg'), now));
  }
  await tx.serverClaims.releaseTurn(turn.id);
  return unknown;
}

export interface CloseTurnRequest {
  status: 'cancelled' | 'failed' | 'expired';
  error: TurnError | null;
  /** Written as the result of every call still pending. */
  syntheticResult: string;
  actor: string | null;
  /** A call that expired (marked `expired`, the others `cancelled`). */
  expiredCallId?: string;
  expiredResult?: string;
}

export interface ClosedTurn {
  turn: TurnRecord;
  closedCalls: LedgerEntryRecord[];
}

/**
 * Ends a running or paused turn for good (cancel, deadline policy `fail`/`cancel`, a dead process).
 * Every pending call gets a synthetic error result and an output item, so history stays valid.
 * Returns undefined if the turn was no longer open.
 */
export async function closeTurn(
  context: EngineContext,
  turnId: string,
  request: CloseTurnRequest,
): Promise<ClosedTurn | undefined> {
  const now = nowIso(context);
  const closed = await context.store.transaction(async (tx) => {
    const turn = await tx.turns.update(turnId, ['in_progress', 'requires_action'], {
      status: request.status,
      finishReason: request.status === 'cancelled' ? 'cancelled' : 'error',
      error: request.error,
      updatedAt: now,
      completedAt: now,
    });
    if (!turn) return undefined;
    const entries = await tx.ledger.listByTurn(turnId);
    const closedCalls: LedgerEntryRecord[] = [];
    const settled: LedgerEntryRecord[] = [];
    for (const entry of entries) {
      if (entry.state !== 'pending') {
        settled.push(entry);
        continue;
      }
      // An asynchronous call outlives its turn: its result may still arrive and be delivered.
      if (entry.kind === 'client_async') continue;
      const expired = entry.id === request.expiredCallId;
      const resolved = await close(
        tx,
        entry,
        {
          state: expired ? 'expired' : 'cancelled',
          message: expired ? (request.expiredResult ?? request.syntheticResult) : request.syntheticResult,
          actor: request.actor,
        },
        now,
      );
      if (resolved) {
        closedCalls.push(resolved);
        settled.push(resolved);
      }
    }
    settled.push(...(await recordUnknownOutcomes(context, tx, turn, entries, now)));
    await writeMissingOutputs(context, tx, turn, settled);
    await bumpConversation(tx, turn.appId, turn.conversationId, { activeTurnId: null, updatedAt: now });
    return { turn, closedCalls };
  });
  // Stop a model call of this turn running in this process; its writes would be refused anyway.
  context.running.get(turnId)?.abort();
  return closed;
}
