import type { JsonObject, PausedResponseStatus, ResponseRecord, TurnRecord, TurnUsage } from '../../domain/records.ts';
import type { ResponseState } from '../../engine/index.ts';
import { itemView, type ItemViewOptions } from './item-views.ts';

/**
 * Renders Baton records as Open Responses objects. Every key of the spec's ResponseResource is
 * always present (nullable ones as null): the compliance suite and strict clients parse them all.
 */

export type ResponseStatus =
  'queued' | 'in_progress' | 'completed' | 'requires_action' | 'incomplete' | 'failed' | 'cancelled';

export interface ResponseViewOptions extends ItemViewOptions {
  /** What a response waiting for the client's outputs says (see response-dialect.ts); `completed` when absent. */
  pausedStatus?: PausedResponseStatus;
}

function seconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

export function usageView(usage: TurnUsage): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

/** What a response added to its conversation's usage: the turn's now, less what it had before. */
function usageSince(now: TurnUsage, before: TurnUsage): TurnUsage {
  return {
    inputTokens: now.inputTokens - before.inputTokens,
    outputTokens: now.outputTokens - before.outputTokens,
    cachedInputTokens: (now.cachedInputTokens ?? 0) - (before.cachedInputTokens ?? 0),
    reasoningTokens: (now.reasoningTokens ?? 0) - (before.reasoningTokens ?? 0),
  };
}

/** The skeleton every view shares: the echoed request and the fields that start empty. */
export function baseResponseView(
  record: Pick<ResponseRecord, 'id' | 'createdAt' | 'echo' | 'previousResponseId'>,
): JsonObject {
  return {
    id: record.id,
    object: 'response',
    created_at: seconds(record.createdAt),
    completed_at: null,
    status: 'in_progress',
    incomplete_details: null,
    previous_response_id: record.previousResponseId,
    output: [],
    error: null,
    usage: null,
    ...record.echo,
  };
}

/** What the engine's run looks like behind a response; an extra key the spec and the SDK ignore. */
export interface RunView {
  id: string;
  conversation_id: string;
  status: TurnRecord['status'];
  /** Calls the client answers with `function_call_output` (kind `client`); never server calls. */
  pending_tool_call_ids: string[];
  /** Server calls waiting for a person's decision (POST /v1/tool-calls/{id}/decision); the turn resumes by itself. */
  pending_approval_ids: string[];
}

function statusOf(state: ResponseState, pausedStatus: PausedResponseStatus): ResponseStatus {
  // `requires_action` means the client has calls to answer: a turn waiting only for approvals is
  // a person's business, and shows as on /v1.
  const waitsForClient =
    !state.continuation && state.turn.status === 'requires_action' && state.pendingCallIds.length > 0;
  if (waitsForClient && pausedStatus === 'requires_action') return 'requires_action';
  return responseStatus(state.turn, state.continuation !== null);
}

/** A response's status from its turn: a paused turn's response is `completed` (with calls to answer). */
export function responseStatus(turn: Pick<TurnRecord, 'status' | 'finishReason'>, continued: boolean): ResponseStatus {
  if (continued) return 'completed';
  switch (turn.status) {
    case 'in_progress':
      return 'in_progress';
    case 'requires_action':
      return 'completed';
    case 'completed':
      return turn.finishReason === 'length' ? 'incomplete' : 'completed';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
    case 'expired':
      return 'failed';
  }
}

/** The full ResponseResource of a response as it stands. */
export function responseView(state: ResponseState, options: ResponseViewOptions = {}): JsonObject {
  const { record, turn, continuation } = state;
  const status = statusOf(state, options.pausedStatus ?? 'completed');
  const usageNow = continuation ? continuation.usageBefore : turn.usage;
  const finishedAt = continuation
    ? continuation.createdAt
    : status === 'in_progress'
      ? null
      : (turn.completedAt ?? turn.updatedAt);
  const lastIndex = state.output.length - 1;
  const run: RunView = {
    id: turn.id,
    conversation_id: turn.conversationId,
    status: continuation ? 'requires_action' : turn.status,
    pending_tool_call_ids: state.pendingCallIds,
    pending_approval_ids: state.pendingApprovalIds,
  };
  return {
    ...baseResponseView(record),
    status,
    completed_at: finishedAt === null ? null : seconds(finishedAt),
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    output: state.output.map((item, index) =>
      itemView(
        item,
        status === 'incomplete' && index === lastIndex ? 'incomplete' : 'completed',
        state.serverCalls,
        options,
      ),
    ),
    error:
      status === 'failed'
        ? { code: turn.error?.code ?? 'server_error', message: turn.error?.message ?? 'The response failed.' }
        : null,
    usage: status === 'in_progress' ? null : usageView(usageSince(usageNow, record.usageBefore)),
    baton_run: run as unknown as JsonObject,
  };
}
