import { UNKNOWN_OUTCOME } from './interrupted-calls.ts';
import { failWithUnknownOutcome, RECOVERY_ACTOR } from './ledger/ledger-transitions.ts';
import { DEADLINE_ACTOR, expire } from './ledger/ledger-transitions.ts';
import type { EngineContext } from './engine-context.ts';
import { turnLogIds } from './engine-log-ids.ts';
import type { LedgerEntryRecord, TurnRecord } from '../domain/records.ts';
import { closeTurn } from './turn-closing.ts';

/** What applying a deadline may set off, provided by the engine that owns the turn loop. */
export interface DeadlineFollowUps {
  /** Resume the turn once nothing is pending any more (policy `error_result`). */
  resume(turnId: string): void;
  /** Start input queued behind a turn that the deadline ended (policies `fail`, `cancel`). */
  drainQueue(appId: string, conversationId: string): void;
}

/**
 * Applies the deadline policy of every pending call that is due. Safe with several processes:
 * each expiry is a conditional update, so only one process applies it.
 */
export async function applyDueDeadlines(
  context: EngineContext,
  limit: number,
  followUps: DeadlineFollowUps,
): Promise<number> {
  const now = context.clock.now();
  const due = await context.store.ledger.listDue(now.toISOString(), limit);
  let applied = 0;
  for (const entry of due) {
    const seconds = Math.round((now.getTime() - Date.parse(entry.createdAt)) / 1000);
    const text = `Expired: tool call '${entry.id}' (${entry.toolName}) received no result within its deadline (${seconds} s after it was made).`;
    if (await applyTimeoutPolicy(context, entry, text, now.toISOString(), followUps)) applied += 1;
  }
  return applied;
}

/**
 * Ends a pending call that will get no result (its deadline passed, its workers kept dying) as
 * its tool's timeout policy says: an error result the model reads (`error_result`), or the turn
 * failed or cancelled. Returns whether this process applied it (another may have first).
 */
export async function applyTimeoutPolicy(
  context: EngineContext,
  entry: LedgerEntryRecord,
  text: string,
  at: string,
  followUps: DeadlineFollowUps,
): Promise<boolean> {
  if (entry.kind === 'client_async') {
    // Its turn went on long ago: the expiry is recorded on the ledger, nothing resumes.
    return (await expire(context.store, entry, text, at)) !== undefined;
  }
  if (entry.timeoutPolicy === 'error_result') {
    if (!(await expire(context.store, entry, text, at))) return false;
    followUps.resume(entry.turnId);
    return true;
  }
  const closed = await closeTurn(context, entry.turnId, {
    status: entry.timeoutPolicy === 'fail' ? 'failed' : 'cancelled',
    error: entry.timeoutPolicy === 'fail' ? { code: 'tool_call_expired', message: text } : null,
    syntheticResult: `Cancelled: tool call '${entry.id}' expired, which ended the turn.`,
    actor: DEADLINE_ACTOR,
    expiredCallId: entry.id,
    expiredResult: text,
  });
  if (!closed) return false;
  followUps.drainQueue(entry.appId, entry.conversationId);
  return true;
}

/**
 * Turns left `in_progress` by a process that died, or lost its database for longer than
 * `staleAfterSeconds` (see `Engine.recoverStaleTurns`). Each is taken over and handed to
 * `continueTurn`, which goes on from its last committed step: the model step in flight may be
 * asked again, but every ledger effect happens once. A turn already taken over
 * `settings.maxTurnTakeovers` times (one that keeps killing its process, say) is failed instead,
 * as every stale turn is when that setting is 0.
 */
export async function recoverStaleTurns(
  context: EngineContext,
  limit: number,
  staleAfterSeconds: number,
  continueTurn: (turn: TurnRecord) => void,
): Promise<number> {
  const now = context.clock.now();
  const before = new Date(now.getTime() - staleAfterSeconds * 1000).toISOString();
  const stale = await context.store.turns.listStale(before, limit);
  let recovered = 0;
  for (const turn of stale) {
    if (context.running.has(turn.id)) continue;
    if (turn.takeovers < context.settings.maxTurnTakeovers) {
      const taken = await context.store.turns.takeOver(turn.id, before, context.newId('lease'), now.toISOString());
      if (!taken) continue;
      context.logger.warn(
        { ...turnLogIds(turn), takeovers: taken.takeovers },
        'taking over a turn whose process went silent',
      );
      continueTurn(taken);
      recovered += 1;
      continue;
    }
    const closed = await closeTurn(context, turn.id, {
      status: 'failed',
      error: {
        code: 'interrupted',
        message:
          context.settings.maxTurnTakeovers === 0
            ? 'The server stopped while this turn was running. Send the message again.'
            : `The server stopped while this turn was running, and the turn was taken over ${turn.takeovers} ` +
              'times already (engine.max_turn_takeovers). Send the message again.',
      },
      syntheticResult: 'Cancelled: the server stopped before this tool call received a result.',
      actor: RECOVERY_ACTOR,
    });
    if (closed) recovered += 1;
  }
  return recovered;
}

/**
 * Resumes turns whose calls were all answered but whose resume never ran (the process died
 * between the last answer and the resume). `graceSeconds` leaves live resumes alone.
 */
export async function resumeStrandedTurns(
  context: EngineContext,
  graceSeconds: number,
  limit: number,
  resume: (turnId: string) => Promise<boolean>,
): Promise<number> {
  const before = new Date(context.clock.now().getTime() - graceSeconds * 1000).toISOString();
  let resumed = 0;
  for (const candidate of await context.store.turns.listStranded(before, limit)) {
    if (await resume(candidate.id)) resumed += 1;
  }
  return resumed;
}

/**
 * Approvals whose approved tool was running in a process that died: their claim was not renewed
 * for `staleAfterSeconds`. Each is recorded as failed with an unknown outcome (the tool may have
 * run), its claim released, and its turn resumed by `resume` once nothing else is pending.
 * Claims of a running step's server calls are left to `recoverStaleTurns`.
 */
export async function recoverStaleClaims(
  context: EngineContext,
  limit: number,
  staleAfterSeconds: number,
  resume: (turnId: string) => Promise<boolean>,
): Promise<number> {
  const now = context.clock.now();
  const before = new Date(now.getTime() - staleAfterSeconds * 1000).toISOString();
  let recovered = 0;
  for (const claimed of await context.store.serverClaims.listStale(before, limit)) {
    const entry = await context.store.ledger.get(claimed.appId, claimed.id);
    if (!entry || entry.kind !== 'approval') continue;
    const at = now.toISOString();
    if (entry.state === 'pending') {
      const resolved = await failWithUnknownOutcome(context.store, entry, UNKNOWN_OUTCOME, at);
      if (resolved) recovered += 1;
    }
    await context.store.serverClaims.release(entry.id);
    await resume(entry.turnId);
  }
  return recovered;
}
