import type { ClientToolDefinition, LedgerEntryRecord, NewItem, TurnRecord } from '../domain/records.ts';
import type { Repositories } from '../store/store.ts';
import { TurnSupersededError } from './conversation-version.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { RECOVERY_ACTOR, resolveRan } from './ledger/ledger-transitions.ts';
import { runOne } from './server-calls.ts';
import { outputsOf } from './step-calls.ts';

/** The result of a server call whose process died while it ran. */
export const UNKNOWN_OUTCOME =
  'The server stopped while this tool call was running, so whether it took effect is unknown. ' +
  'Check its effect before calling it again.';

/**
 * A claimed call that never committed (its process died mid-call), settled as failed with an
 * unknown outcome: the tool may have run, and whoever reads the ledger must know it.
 */
export function withUnknownOutcome(entry: LedgerEntryRecord, now: string): LedgerEntryRecord {
  return {
    ...entry,
    state: 'failed',
    result: [{ type: 'text', text: UNKNOWN_OUTCOME }],
    isError: true,
    submittedBy: RECOVERY_ACTOR,
    submittedAt: now,
    updatedAt: now,
  };
}

/** The call items of settled interrupted calls, as one assistant group: the model made them. */
export function interruptedCallItems(
  context: EngineContext,
  turn: TurnRecord,
  entries: readonly LedgerEntryRecord[],
  groupId: string,
  now: string,
): NewItem[] {
  return [...entries]
    .sort((a, b) => a.callIndex - b.callIndex)
    .map((entry) => ({
      id: context.newId('item'),
      conversationId: turn.conversationId,
      turnId: turn.id,
      groupId,
      createdAt: now,
      payload: {
        type: 'function_call' as const,
        callId: entry.id,
        name: entry.toolName,
        arguments: JSON.stringify(entry.arguments),
        executor: 'server' as const,
      },
    }));
}

/**
 * A turn taken over from a process that died mid-step: the step itself never committed, but the
 * server calls it had claimed may have run. Before the new holder steps the model again, each is
 * settled once: a tool marked `idempotent` runs again (same arguments, so running it twice is
 * harmless) and its result is recorded; any other gets a failed result saying its outcome is
 * unknown. Calls and results commit with the claims' release, under the new holder's lease, so
 * the model sees what happened and no call is ever run twice unannounced.
 */
export async function settleInterruptedCalls(
  context: EngineContext,
  turn: TurnRecord,
  tools: ReadonlyMap<string, ClientToolDefinition>,
  signal: AbortSignal,
): Promise<TurnRecord> {
  // Only a takeover finds claims left behind: a turn started or resumed here never has any.
  if (turn.takeovers === 0) return turn;
  const claimed = (await context.store.serverClaims.listByTurn(turn.id)).filter((entry) => entry.kind === 'server');
  if (claimed.length === 0) return turn;
  const settled: LedgerEntryRecord[] = [];
  for (const entry of claimed) {
    const tool = tools.get(entry.toolName);
    if (tool?.idempotent === true) {
      await context.store.serverClaims.renew(entry.id, nowIso(context));
      const rerun = { ...entry };
      resolveRan(
        rerun,
        await runOne(context, rerun, tool, signal, turn.options.useToolFakes === true, 'server'),
        nowIso(context),
      );
      settled.push(rerun);
    } else {
      settled.push(withUnknownOutcome(entry, nowIso(context)));
    }
  }
  const now = nowIso(context);
  const groupId = context.newId('msg');
  const base = { conversationId: turn.conversationId, turnId: turn.id, createdAt: now };
  return context.store.transaction(async (tx: Repositories) => {
    const held = await tx.turns.update(turn.id, ['in_progress'], { updatedAt: now }, turn.leaseToken ?? undefined);
    if (!held) throw new TurnSupersededError(turn.id);
    await tx.ledger.insert(settled);
    await tx.items.append([
      ...interruptedCallItems(context, turn, settled, groupId, now),
      ...outputsOf(context, settled, base, `${groupId}_server`),
    ]);
    await tx.serverClaims.releaseTurn(turn.id);
    return held;
  });
}
