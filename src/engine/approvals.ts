import type { ClientToolDefinition, JsonValue, LedgerEntryRecord, TurnRecord } from '../domain/records.ts';
import { hashArguments } from './arguments-hash.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { applyDecision, applyResult, type SubmissionActor } from './ledger/ledger-transitions.ts';
import type { MatchedResult } from './ledger/result-intake.ts';
import type { TurnOutcome } from './turn-runner.ts';
import { runOne } from './server-calls.ts';
import { checkToolArguments } from './tool-schema.ts';
import { DuplicateKeyError } from '../store/store.ts';

/** A person's answer to an approval: approve (optionally with edited arguments) or deny with a reason. */
export interface ApprovalDecision {
  approve: boolean;
  reason?: string;
  /** Replaces the model's arguments when approving; checked against the tool's schema first. */
  arguments?: JsonValue;
}

/**
 * Runs an approved call under its claim: only the approval that takes the claim runs the tool,
 * so approvals arriving together (two reviewers, a retry, two replicas) never run it twice. The
 * claim is renewed while the tool runs; one left behind by a dead process is recovered by the
 * sweeps (`recoverStaleClaims`), which record the call's outcome as unknown.
 */
async function runClaimed(
  context: EngineContext,
  entry: LedgerEntryRecord,
  run: () => Promise<LedgerEntryRecord | undefined>,
): Promise<LedgerEntryRecord | undefined> {
  try {
    await context.store.serverClaims.claim(entry, nowIso(context));
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    throw new BatonError(
      'approval_in_progress',
      `Approval '${entry.id}' is being decided by another request, which is running the tool now; ` +
        `read it again with GET /v1/tool-calls/${entry.id} in a moment.`,
      { details: { tool_call_id: entry.id } },
    );
  }
  const renewal = setInterval(
    () => void context.store.serverClaims.renew(entry.id, nowIso(context)).catch(() => {}),
    Math.max(1_000, (context.settings.staleTurnSeconds * 1000) / 3),
  );
  renewal.unref();
  try {
    // The row was read before the claim was taken: a decision that committed and let its claim go
    // in between would otherwise see the tool run a second time (seen in the chaos test).
    const current = await context.store.ledger.get(entry.appId, entry.id);
    if (current?.state !== 'pending') throw alreadyDecided(current ?? entry);
    return await run();
  } finally {
    clearInterval(renewal);
    await context.store.serverClaims.release(entry.id);
  }
}

function alreadyDecided(entry: LedgerEntryRecord): BatonError {
  return new BatonError(
    'tool_call_already_resolved',
    `Approval '${entry.id}' was already decided (${entry.state}${entry.submittedBy ? ` by ${entry.submittedBy}` : ''}); a decision cannot be changed.`,
    { details: { tool_call_id: entry.id, state: entry.state } },
  );
}

/**
 * Applies a decision on an `approval` ledger row. Approve runs the tool (with the edited
 * arguments, re-validated) and records its result; deny records an error result with the reason.
 * Either way the row says who decided and when. The turn resumes separately, once nothing is pending.
 */
export async function decideApproval(
  context: EngineContext,
  entry: LedgerEntryRecord,
  tool: ClientToolDefinition | undefined,
  decision: ApprovalDecision,
  submission: SubmissionActor,
  useFakes: boolean,
): Promise<LedgerEntryRecord> {
  if (entry.kind !== 'approval') {
    throw new BatonError(
      'not_an_approval',
      `Tool call '${entry.id}' is not waiting for an approval; send its result with POST /v1/tool-calls/${entry.id}/result.`,
    );
  }
  if (entry.state !== 'pending') throw alreadyDecided(entry);
  let resolved: LedgerEntryRecord | undefined;
  if (!decision.approve) {
    const reason = decision.reason?.trim() || 'no reason given';
    resolved = await applyDecision(context.store, entry, { approved: false, reason }, submission, nowIso(context));
  } else {
    if (!tool)
      throw new BatonError(
        'tool_gone',
        `Tool '${entry.toolName}' of approval '${entry.id}' no longer exists; deny the call instead.`,
      );
    let approved = entry;
    if (decision.arguments !== undefined) {
      const check = checkToolArguments(tool, JSON.stringify(decision.arguments));
      if (!check.ok) {
        throw new BatonError(
          'invalid_arguments',
          `The edited arguments do not fit tool '${tool.name}': ${check.problem}.`,
          { param: 'arguments' },
        );
      }
      approved = { ...entry, arguments: check.value, argumentsHash: hashArguments(check.value) };
    }
    resolved = await runClaimed(context, entry, async () => {
      const result = await runOne(context, approved, tool, new AbortController().signal, useFakes, 'approved');
      return applyDecision(context.store, entry, { approved: true, result }, submission, nowIso(context));
    });
  }
  if (!resolved)
    throw new BatonError(
      'tool_call_already_resolved',
      `Approval '${entry.id}' was decided by another request at the same time.`,
    );
  return resolved;
}

/**
 * Client results sent while approvals of the same step are undecided: they are recorded, and the
 * turn stays paused until the approvals are decided (then it resumes with everything in call order).
 */
export async function recordResultsBeforeApprovals(
  context: EngineContext,
  turn: TurnRecord,
  results: readonly MatchedResult[],
  approvals: readonly LedgerEntryRecord[],
  submission: SubmissionActor,
  hasNewInput: boolean,
): Promise<TurnOutcome> {
  if (hasNewInput) {
    throw new BatonError(
      'approvals_pending',
      `Approvals ${approvals.map((entry) => entry.id).join(', ')} are still undecided; send new input once they are decided.`,
    );
  }
  const now = nowIso(context);
  for (const { result, entry } of results) {
    await applyResult(context.store, entry, result, submission, now, `${result.param}.tool_call_id`);
  }
  return { turn, replyGroupId: '', text: null, pendingCalls: [...approvals] };
}
