import type {
  ContentPart,
  ConversationRecord,
  ItemRecord,
  LedgerEntryRecord,
  LedgerResolution,
  TurnOptions,
  TurnRecord,
} from '../domain/records.ts';
import { toNewItems, type InputItem } from './input-items.ts';
import type { Repositories } from '../store/store.ts';
import { bumpConversation } from './conversation-version.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { writeMissingOutputs } from './turn-closing.ts';
import { blocksTurn } from './pending-calls.ts';

/** One result sent by the client for one call. */
export interface ToolResultInput {
  callId: string;
  output: ContentPart[];
  isError: boolean;
  /** Where the result sits in the request (`content[1]`), for error messages. */
  param: string;
}

export interface SubmissionActor {
  /** Who submits (an API key id); recorded on the ledger entry. */
  actor: string | null;
  idempotencyKey: string | null;
}

function resolutionFor(
  result: { output: ContentPart[]; isError: boolean },
  submission: SubmissionActor,
  now: string,
): LedgerResolution {
  return {
    state: result.isError ? 'failed' : 'completed',
    result: result.output,
    isError: result.isError,
    submittedBy: submission.actor,
    submittedAt: now,
    idempotencyKey: submission.idempotencyKey,
  };
}

function alreadyResolved(entry: LedgerEntryRecord, param: string): BatonError {
  return new BatonError(
    'tool_call_already_resolved',
    `Tool call '${entry.id}' is already ${entry.state}${entry.submittedAt ? ` (since ${entry.submittedAt})` : ''}; a result cannot be sent twice or changed.`,
    { param, details: { tool_call_id: entry.id, state: entry.state } },
  );
}

/**
 * Checks a message that answers the pending calls of a conversation, before anything is written:
 * every id must be a call of this conversation, still pending, given once, and together they must
 * cover every pending call (the seeds' rule: all results of a parallel set in one message).
 */
export async function checkResultsMessage(
  context: EngineContext,
  conversation: ConversationRecord,
  results: readonly ToolResultInput[],
): Promise<{ turn: TurnRecord; pending: LedgerEntryRecord[]; approvals: LedgerEntryRecord[] }> {
  const store = context.store;
  const activeTurn = conversation.activeTurnId ? await store.turns.get(conversation.activeTurnId) : undefined;
  const blocking =
    activeTurn && activeTurn.status === 'requires_action'
      ? (await store.ledger.listByTurn(activeTurn.id)).filter(blocksTurn)
      : [];
  // Approvals are decided by a person through the ledger, never answered by a results message.
  const approvals = blocking.filter((entry) => entry.kind === 'approval');
  const pending = blocking.filter((entry) => entry.kind !== 'approval');
  const pendingIds = pending.map((entry) => entry.id);
  const pendingById = new Map(pending.map((entry) => [entry.id, entry]));
  const seen = new Set<string>();
  for (const result of results) {
    // Pending calls are already at hand; only ids outside the pending set need a lookup.
    const entry = pendingById.get(result.callId) ?? (await store.ledger.get(conversation.appId, result.callId));
    if (!entry || entry.conversationId !== conversation.id) {
      throw new BatonError(
        'invalid_tool_call_id',
        `Invalid tool_call_id '${result.callId}' at ${result.param}.tool_call_id: thread '${conversation.id}' has no tool call with this id. ` +
          (pendingIds.length > 0
            ? `Use the exact ids from tool_calls[].id; pending calls: ${pendingIds.join(', ')}.`
            : 'The thread has no pending tool calls.'),
        {
          param: `${result.param}.tool_call_id`,
          details: { pending_tool_call_ids: pendingIds },
          data: { call_id: result.callId },
        },
      );
    }
    if (seen.has(result.callId)) {
      throw new BatonError(
        'duplicate_tool_result',
        `Duplicate result for tool call '${result.callId}' at ${result.param}: send exactly one result per call.`,
        {
          param: `${result.param}.tool_call_id`,
        },
      );
    }
    seen.add(result.callId);
    if (entry.state !== 'pending') throw alreadyResolved(entry, `${result.param}.tool_call_id`);
    if (entry.kind === 'approval') {
      throw new BatonError(
        'approval_required',
        `Tool call '${entry.id}' at ${result.param} waits for an approval, not a result: decide it with POST /v1/tool-calls/${entry.id}/decision.`,
        {
          param: `${result.param}.tool_call_id`,
        },
      );
    }
  }
  if (!activeTurn || pending.length === 0) {
    throw new BatonError('thread_not_pending', `Thread '${conversation.id}' is not waiting for tool results.`);
  }
  const missing = pendingIds.filter((id) => !seen.has(id));
  if (missing.length > 0) {
    throw new BatonError(
      'missing_tool_results',
      `Missing results for pending tool calls ${missing.join(', ')}: send the results of all ${pendingIds.length} pending calls in one message, or submit them one at a time with POST /v1/tool-calls/{id}/result.`,
      { param: 'content', details: { missing_tool_call_ids: missing, pending_tool_call_ids: pendingIds } },
    );
  }
  return { turn: activeTurn, pending, approvals };
}

/**
 * Moves a paused turn back to `in_progress` when none of its calls is pending any more, writing
 * the results as one message. Returns the turn if this caller won the resume, else undefined
 * (calls still pending, or another request resumed it first).
 */
export async function beginResume(
  context: EngineContext,
  tx: Repositories,
  turnId: string,
): Promise<TurnRecord | undefined> {
  return (await beginResumeWithOutputs(context, tx, turnId))?.turn;
}

/** `beginResume`, also returning the output items it wrote (the resumed turn's input). */
export async function beginResumeWithOutputs(
  context: EngineContext,
  tx: Repositories,
  turnId: string,
): Promise<{ turn: TurnRecord; outputs: ItemRecord[] } | undefined> {
  const turn = await tx.turns.get(turnId);
  if (!turn || turn.status !== 'requires_action') return undefined;
  const entries = await tx.ledger.listByTurn(turnId);
  if (entries.some(blocksTurn)) return undefined;
  const now = nowIso(context);
  const resumed = await tx.turns.update(turnId, ['requires_action'], { status: 'in_progress', updatedAt: now });
  if (!resumed) return undefined;
  const outputs = await writeMissingOutputs(context, tx, resumed, entries);
  await bumpConversation(tx, resumed.appId, resumed.conversationId, { updatedAt: now });
  return { turn: resumed, outputs };
}

/** Applies a checked results message: resolves every call and resumes the turn, in one transaction. */
export async function applyResultsMessage(
  context: EngineContext,
  turn: TurnRecord,
  results: readonly ToolResultInput[],
  submission: SubmissionActor,
  followUp: readonly InputItem[] = [],
  onAccepted?: (tx: Repositories, accepted: { turn: TurnRecord; inputItems: ItemRecord[] }) => Promise<void>,
  turnOptions?: TurnOptions,
): Promise<TurnRecord> {
  const now = nowIso(context);
  return context.store.transaction(async (tx) => {
    for (const result of results) {
      const resolved = await tx.ledger.resolve(result.callId, resolutionFor(result, submission, now));
      if (!resolved) {
        const entry = await tx.ledger.get(turn.appId, result.callId);
        throw entry
          ? alreadyResolved(entry, `${result.param}.tool_call_id`)
          : new BatonError('concurrent_update', 'The tool call changed meanwhile; retry.');
      }
    }
    const resumed = await beginResumeWithOutputs(context, tx, turn.id);
    if (!resumed) {
      throw new BatonError(
        'concurrent_update',
        `Turn '${turn.id}' was resumed or closed by another request at the same time.`,
      );
    }
    if (turnOptions) {
      const updated = await tx.turns.update(turn.id, ['in_progress'], { updatedAt: now, options: turnOptions });
      if (updated) resumed.turn = updated;
    }
    const extra = followUp.length > 0 ? await tx.items.append(toNewItems(context, resumed.turn, followUp, now)) : [];
    if (onAccepted) await onAccepted(tx, { turn: resumed.turn, inputItems: [...resumed.outputs, ...extra] });
    return resumed.turn;
  });
}

/** Resolves one call through the ledger. The turn resumes separately, once nothing is pending. */
export async function resolveOneCall(
  context: EngineContext,
  appId: string,
  callId: string,
  result: { output: ContentPart[]; isError: boolean },
  submission: SubmissionActor,
): Promise<LedgerEntryRecord> {
  const entry = await context.store.ledger.get(appId, callId);
  if (!entry) {
    throw new BatonError(
      'tool_call_not_found',
      `No tool call found with id '${callId}'. List pending calls with GET /v1/tool-calls?state=pending.`,
    );
  }
  if (entry.state !== 'pending') throw alreadyResolved(entry, 'tool_call_id');
  if (entry.kind === 'approval') {
    throw new BatonError(
      'approval_required',
      `Tool call '${callId}' waits for an approval, not a result: decide it with POST /v1/tool-calls/${callId}/decision {"approve": true|false, "reason": "…"}.`,
    );
  }
  const resolved = await context.store.ledger.resolve(callId, resolutionFor(result, submission, nowIso(context)));
  if (!resolved) {
    const current = (await context.store.ledger.get(appId, callId)) ?? entry;
    throw alreadyResolved(current, 'tool_call_id');
  }
  return resolved;
}
