import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ContentPart, LedgerEntryRecord, LedgerResolution, LedgerState } from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import type { LeaseGuard } from '../../domain/queries.ts';
import { heldByWorker, leasedByWorker, leaseLost } from './lease-errors.ts';

/**
 * The ledger's state machine: `pending → completed | failed | denied | expired | cancelled`.
 * This module is the only code that moves a row out of `pending` (in the store, or in memory for
 * a row its step has not written yet) and the only place a resolution is built, so every way a
 * call ends (a client's result, a person's decision, a deadline, a cancel, a server run, a fake)
 * records the same facts: what the result is, who gave it, when, under which idempotency key.
 */

/** Who gives a result: an API key (or a Baton actor such as `baton:deadline`), and the request's key. */
export interface SubmissionActor {
  /** Who submits (an API key id); recorded on the ledger entry. */
  actor: string | null;
  idempotencyKey: string | null;
  /**
   * The request retries one under the same key whose server died before answering: a turn that
   * first run started is rejoined rather than started again (see `turn-rejoin.ts`).
   */
  retriesDeadRun?: boolean;
}

/** A result for one call: content parts, and whether they describe a failure. */
export interface CallResult {
  output: ContentPart[];
  isError: boolean;
}

/** Who answered a row Baton resolved itself; `baton:fake` marks a fake's answer. */
export const SERVER_SUBMITTER = 'baton:server';
export const FAKE_SUBMITTER = 'baton:fake';
/** Actors of the rows Baton closes itself. */
export const DEADLINE_ACTOR = 'baton:deadline';

function resolution(
  state: Exclude<LedgerState, 'pending'>,
  result: CallResult,
  by: SubmissionActor,
  at: string,
): LedgerResolution {
  return {
    state,
    result: result.output,
    isError: result.isError,
    submittedBy: by.actor,
    submittedAt: at,
    idempotencyKey: by.idempotencyKey,
  };
}

function text(message: string): ContentPart[] {
  return [{ type: 'text', text: message }];
}

/** The conflict of a call that already left `pending`: a result is given once and never changed. */
export function alreadyResolved(entry: LedgerEntryRecord, param: string | null): BatonError {
  return new BatonError(
    'tool_call_already_resolved',
    `Tool call '${entry.id}' is already ${entry.state}${entry.submittedAt ? ` (since ${entry.submittedAt})` : ''}; a result cannot be sent twice or changed.`,
    { param, details: { tool_call_id: entry.id, state: entry.state } },
  );
}

/** A pending row as `applyResult` leaves it, for a run that has the result before it is written. */
export function withResult(
  entry: LedgerEntryRecord,
  result: CallResult,
  by: SubmissionActor,
  at: string,
): LedgerEntryRecord {
  return { ...entry, ...resolution(result.isError ? 'failed' : 'completed', result, by, at), updatedAt: at };
}

/**
 * A client's result for a pending call: `completed`, or `failed` when it is an error. Only one of
 * two concurrent answers applies; the other gets the conflict of an already resolved call. A
 * worker's result applies only while its lease token (`guard`) holds the call; anyone else's only
 * while no live lease does, so nobody answers a call a worker is running.
 */
export async function applyResult(
  tx: Pick<Repositories, 'ledger'>,
  entry: LedgerEntryRecord,
  result: CallResult,
  by: SubmissionActor,
  at: string,
  param: string | null,
  guard: LeaseGuard | undefined = entry.worker ? { unleased: at } : undefined,
): Promise<LedgerEntryRecord> {
  const resolved = await tx.ledger.resolve(
    entry.id,
    resolution(result.isError ? 'failed' : 'completed', result, by, at),
    guard,
  );
  if (resolved) return resolved;
  const current = (await tx.ledger.get(entry.appId, entry.id)) ?? entry;
  if (current.state === 'pending' && guard && 'lease' in guard) throw leaseLost(current, at);
  if (heldByWorker(current, at)) throw leasedByWorker(current, param);
  throw alreadyResolved(current, param);
}

/** A person's decision on an approval: the tool's result when approved, the reason when denied. */
export async function applyDecision(
  tx: Pick<Repositories, 'ledger'>,
  entry: LedgerEntryRecord,
  decision: { approved: true; result: CallResult } | { approved: false; reason: string },
  by: SubmissionActor,
  at: string,
): Promise<LedgerEntryRecord | undefined> {
  const outcome = decision.approved
    ? resolution(decision.result.isError ? 'failed' : 'completed', decision.result, by, at)
    : resolution(
        'denied',
        { output: text(`Denied by ${by.actor ?? 'a reviewer'}: ${decision.reason}`), isError: true },
        by,
        at,
      );
  return tx.ledger.resolve(entry.id, outcome);
}

/** Who records a call whose process died while it ran (`baton:recovery`). */
export const RECOVERY_ACTOR = 'baton:recovery';

/**
 * A pending call whose tool was running in a process that died: failed, its outcome unknown.
 * Undefined if it was resolved first.
 */
export function failWithUnknownOutcome(
  tx: Pick<Repositories, 'ledger'>,
  entry: LedgerEntryRecord,
  message: string,
  at: string,
): Promise<LedgerEntryRecord | undefined> {
  return resolveWithError(tx, entry, 'failed', message, RECOVERY_ACTOR, at);
}

/** A pending call whose deadline passed: an error result saying so. Undefined if it was answered first. */
export function expire(
  tx: Pick<Repositories, 'ledger'>,
  entry: LedgerEntryRecord,
  message: string,
  at: string,
): Promise<LedgerEntryRecord | undefined> {
  return resolveWithError(tx, entry, 'expired', message, DEADLINE_ACTOR, at);
}

/** Closes a pending call with an error result Baton writes itself, as `actor`. */
function resolveWithError(
  tx: Pick<Repositories, 'ledger'>,
  entry: LedgerEntryRecord,
  state: 'failed' | 'expired',
  message: string,
  actor: string,
  at: string,
): Promise<LedgerEntryRecord | undefined> {
  return tx.ledger.resolve(
    entry.id,
    resolution(state, { output: text(message), isError: true }, { actor, idempotencyKey: null }, at),
  );
}

/**
 * A pending call of a turn that ends for good (cancel, failure, a dead process): a synthetic
 * error result, `expired` for the call whose deadline ended the turn, `cancelled` for the others.
 */
export function close(
  tx: Pick<Repositories, 'ledger'>,
  entry: LedgerEntryRecord,
  how: { state: 'cancelled' | 'expired'; message: string; actor: string | null },
  at: string,
): Promise<LedgerEntryRecord | undefined> {
  return tx.ledger.resolve(
    entry.id,
    resolution(how.state, { output: text(how.message), isError: true }, { actor: how.actor, idempotencyKey: null }, at),
  );
}

/**
 * A call Baton ran during its step (a server tool, or a fake of any tool), resolved on the row
 * before the step writes it, so the row and the step's items commit together.
 */
export function resolveRan(entry: LedgerEntryRecord, result: CallResult & { faked?: boolean }, at: string): void {
  if (result.faked) {
    // A fake answered it: Baton executed the call, and no deadline applies any more.
    entry.kind = 'server';
    entry.deadlineAt = null;
  }
  const outcome = resolution(
    result.isError ? 'failed' : 'completed',
    result,
    { actor: result.faked ? FAKE_SUBMITTER : SERVER_SUBMITTER, idempotencyKey: null },
    at,
  );
  entry.state = outcome.state;
  entry.result = outcome.result;
  entry.isError = outcome.isError;
  entry.submittedBy = outcome.submittedBy;
  entry.submittedAt = outcome.submittedAt;
  entry.updatedAt = at;
}

/** Whether a fake, rather than the tool or the client, answered the call. */
export function answeredByFake(entry: LedgerEntryRecord): boolean {
  return entry.submittedBy === FAKE_SUBMITTER;
}
