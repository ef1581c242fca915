import { randomBytes } from 'node:crypto';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject, LedgerEntryRecord, TurnUsage } from '../../domain/records.ts';
import type { ChatExchangeOutcome } from '../../engine/index.ts';
import { approvalNotice } from './approval-notice.ts';

/** What every completion (and every chunk of a streamed one) carries: its id, time and model. */
export interface CompletionBase {
  id: string;
  created: number;
  model: string;
}

export function completionBase(model: string, now: Date): CompletionBase {
  return { id: `chatcmpl-${randomBytes(12).toString('hex')}`, created: Math.floor(now.getTime() / 1000), model };
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** The assistant message a request is answered with, before it is put in OpenAI's shape. */
export interface ChatReply {
  /** The model's text of this request, with the approval notice after it; null when there is none. */
  content: string | null;
  toolCalls: ToolCallView[];
  finishReason: FinishReason;
  usage: JsonObject;
  /** Baton's own, additive: which conversation and turn answered, and what they wait for. */
  baton: JsonObject;
}

export interface ToolCallView {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export function toolCallView(entry: LedgerEntryRecord): ToolCallView {
  return {
    id: entry.id,
    type: 'function',
    function: { name: entry.toolName, arguments: JSON.stringify(entry.arguments) },
  };
}

export function usageView(usage: TurnUsage): JsonObject {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

/**
 * The reply to a request, from the engine's outcome and the text the model streamed. A run that
 * failed or was cancelled is an error, as a failed model call is on OpenAI's API; a run that
 * waits for approvals says so in its text (see approval-notice.ts).
 */
export function chatReply(outcome: ChatExchangeOutcome, text: string): ChatReply {
  const { turn } = outcome;
  if (turn.status === 'failed' || turn.status === 'cancelled' || turn.status === 'expired') throw runEnded(outcome);
  const notice = outcome.approvals.length > 0 ? approvalNotice(outcome.approvals) : '';
  const content = [text, notice].filter((part) => part !== '').join('\n\n');
  const finishReason: FinishReason =
    outcome.clientCalls.length > 0
      ? 'tool_calls'
      : turn.status === 'completed' && (turn.finishReason === 'length' || turn.finishReason === 'max_steps')
        ? 'length'
        : 'stop';
  return {
    content: content === '' ? null : content,
    toolCalls: outcome.clientCalls.map(toolCallView),
    finishReason,
    usage: usageView(outcome.usage),
    baton: {
      conversation_id: outcome.conversationId,
      turn_id: turn.id,
      status: turn.status,
      applied: outcome.kind,
      pending_tool_call_ids: outcome.clientCalls.map((entry) => entry.id),
      pending_approval_ids: outcome.approvals.map((entry) => entry.id),
    },
  };
}

function runEnded(outcome: ChatExchangeOutcome): BatonError {
  const { turn } = outcome;
  const data = { conversation_id: outcome.conversationId, turn_id: turn.id };
  if (turn.status === 'failed') {
    return new BatonError(
      'model_error',
      `The agent's run failed: ${turn.error?.message ?? 'the model call failed'} (conversation ${outcome.conversationId}).`,
      { details: { conversation_id: outcome.conversationId, turn_id: turn.id }, data },
    );
  }
  return new BatonError(
    'turn_cancelled',
    `The agent's run was ${turn.status === 'expired' ? 'ended by a tool call deadline' : 'cancelled'} before it answered ` +
      `(conversation ${outcome.conversationId}); send the request again.`,
    { details: { conversation_id: outcome.conversationId, turn_id: turn.id }, data },
  );
}

/** `chat.completion`: the whole reply at once. */
export function completionView(base: CompletionBase, reply: ChatReply): JsonObject {
  return {
    id: base.id,
    object: 'chat.completion',
    created: base.created,
    model: base.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content,
          refusal: null,
          annotations: [],
          ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls as unknown as JsonObject[] } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: reply.usage,
    service_tier: 'default',
    system_fingerprint: null,
    baton: reply.baton,
  };
}
