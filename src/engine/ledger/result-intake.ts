import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ConversationWithActiveTurn } from '../../store/store.ts';
import type { ContentPart, ConversationRecord, LedgerEntryRecord, TurnRecord } from '../../domain/records.ts';
import type { EngineContext } from '../engine-context.ts';
import { blocksTurn } from '../pending-calls.ts';
import { alreadyResolved } from './ledger-transitions.ts';

/** One result sent by the client for one call. */
export interface ToolResultInput {
  callId: string;
  output: ContentPart[];
  isError: boolean;
  /** Where the result sits in the request (`content[1]`), for error messages. */
  param: string;
}

/** A result with the ledger row it answers. */
export interface MatchedResult {
  result: ToolResultInput;
  entry: LedgerEntryRecord;
}

/**
 * The results of one request, each read once with its ledger row and sorted: results of
 * asynchronous calls (their turn went on without them) and results for the paused turn's calls.
 */
export interface ResultIntake {
  /** The conversation's turn waiting for results (`requires_action`), if any. */
  turn: TurnRecord | undefined;
  /** Every ledger row of that turn, in call order. */
  entries: LedgerEntryRecord[];
  /** That turn's calls the client owes, in call order (never approvals). */
  pending: LedgerEntryRecord[];
  /** That turn's approvals still undecided: only a person resolves them. */
  approvals: LedgerEntryRecord[];
  /** Results of asynchronous calls of this conversation, still pending, each given once. */
  asynchronous: MatchedResult[];
  /** The other results, in request order, with their row when one exists. */
  others: { result: ToolResultInput; entry: LedgerEntryRecord | undefined }[];
}

/**
 * Reads the ledger rows a request's results answer: the paused turn's rows come read with the
 * conversation (`conversations.getWithActiveTurn`), any other id is read by itself. Results of
 * asynchronous calls are checked here (pending, given once); the rest are left to
 * `checkResultsMessage` or refused as strays, depending on the request.
 */
export async function readResults(
  context: EngineContext,
  { conversation, active }: ConversationWithActiveTurn,
  results: readonly ToolResultInput[],
): Promise<ResultIntake> {
  const store = context.store;
  const turn = active?.turn.status === 'requires_action' ? active.turn : undefined;
  const turnEntries = turn && active ? active.calls : [];
  const known = new Map(turnEntries.map((entry) => [entry.id, entry]));
  const blocking = turnEntries.filter(blocksTurn);
  const intake: ResultIntake = {
    turn,
    entries: turnEntries,
    pending: blocking.filter((entry) => entry.kind !== 'approval'),
    approvals: blocking.filter((entry) => entry.kind === 'approval'),
    asynchronous: [],
    others: [],
  };
  for (const result of results) {
    let entry = known.get(result.callId);
    if (!entry) {
      entry = await store.ledger.get(conversation.appId, result.callId);
      if (entry) known.set(entry.id, entry);
    }
    if (!entry || entry.kind !== 'client_async' || entry.conversationId !== conversation.id) {
      intake.others.push({ result, entry });
      continue;
    }
    if (entry.state !== 'pending') {
      throw new BatonError(
        'tool_call_already_resolved',
        `Asynchronous tool call '${entry.id}' is already ${entry.state}; its result cannot be sent again.`,
        { param: `${result.param}.tool_call_id`, details: { tool_call_id: entry.id, state: entry.state } },
      );
    }
    if (intake.asynchronous.some((other) => other.entry.id === entry.id)) throw duplicateResult(result);
    intake.asynchronous.push({ result, entry });
  }
  return intake;
}

/** A result that answers no asynchronous call, sent where only asynchronous results may go. */
export function refuseStrays(conversation: ConversationRecord, intake: ResultIntake): void {
  const [stray] = intake.others;
  if (!stray) return;
  throw new BatonError(
    'invalid_tool_call_id',
    `Tool call '${stray.result.callId}' at ${stray.result.param} is not an asynchronous call of conversation '${conversation.id}' waiting for a result.`,
    {
      param: `${stray.result.param}.tool_call_id`,
      data: { call_id: stray.result.callId, conversation_id: conversation.id, not_asynchronous: true },
    },
  );
}

/**
 * Checks the results that answer a paused turn, before anything is written: every id must be a
 * call of this conversation, still pending, given once, and together they must cover every call
 * the client owes (the seeds' rule: all results of a parallel set in one message), unless the
 * caller holds partial results (`allowMissing`). Approvals are decided by a person, never
 * answered by a result.
 */
export function checkResultsMessage(
  conversation: ConversationRecord,
  intake: ResultIntake,
  allowMissing = false,
): MatchedResult[] {
  const pendingIds = intake.pending.map((entry) => entry.id);
  const matched: MatchedResult[] = [];
  for (const { result, entry } of intake.others) {
    const param = `${result.param}.tool_call_id`;
    if (!entry || entry.conversationId !== conversation.id) {
      throw new BatonError(
        'invalid_tool_call_id',
        `Invalid tool_call_id '${result.callId}' at ${param}: conversation '${conversation.id}' has no tool call with this id.`,
        {
          param,
          details: { pending_tool_call_ids: pendingIds },
          data: { call_id: result.callId, conversation_id: conversation.id, pending_call_ids: pendingIds },
        },
      );
    }
    if (matched.some((other) => other.entry.id === entry.id)) throw duplicateResult(result);
    if (entry.state !== 'pending') throw alreadyResolved(entry, param);
    if (entry.kind === 'approval') {
      throw new BatonError(
        'approval_required',
        `Tool call '${entry.id}' at ${result.param} waits for an approval, not a result: decide it with POST /v1/tool-calls/${entry.id}/decision.`,
        { param },
      );
    }
    matched.push({ result, entry });
  }
  if (!intake.turn || intake.pending.length === 0) {
    throw new BatonError('thread_not_pending', `Conversation '${conversation.id}' is not waiting for tool results.`, {
      data: { conversation_id: conversation.id },
    });
  }
  const answered = new Set(matched.map(({ entry }) => entry.id));
  const missing = pendingIds.filter((id) => !answered.has(id));
  if (missing.length > 0 && !allowMissing) {
    throw new BatonError(
      'missing_tool_results',
      `Missing results for pending tool calls ${missing.join(', ')}: send the results of all ${pendingIds.length} ` +
        `pending calls together, or one call at a time through the ledger.`,
      {
        param: 'content',
        details: { missing_tool_call_ids: missing, pending_tool_call_ids: pendingIds },
        data: { missing_call_ids: missing, pending_call_ids: pendingIds },
      },
    );
  }
  return matched;
}

function duplicateResult(result: ToolResultInput): BatonError {
  return new BatonError(
    'duplicate_tool_result',
    `Duplicate result for tool call '${result.callId}' at ${result.param}: send exactly one result per call.`,
    { param: `${result.param}.tool_call_id` },
  );
}
