import type { ConversationState } from '../../engine/index.ts';
import type { TurnOutcome } from '../../engine/index.ts';
import type { ContentPart, ItemRecord, JsonValue, LedgerEntryRecord, TurnUsage } from '../../domain/records.ts';

/** Renders Baton records in the Threads dialect of the SipPulse seed. */

export function contentBlocks(parts: readonly ContentPart[]) {
  return parts.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image')
      return { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } };
    // Files arrive through the Responses face; shown as Anthropic-style document blocks.
    const source =
      part.url !== null
        ? { type: 'url', url: part.url }
        : { type: 'base64', media_type: part.mediaType, data: part.data };
    return {
      type: part.mediaType.startsWith('image/') ? 'image' : 'document',
      source,
      ...(part.filename !== null ? { title: part.filename } : {}),
    };
  });
}

/** A single text part reads back as a plain string, as it was most likely sent. */
export function contentValue(parts: readonly ContentPart[]): string | ReturnType<typeof contentBlocks> {
  const only = parts[0];
  if (parts.length === 1 && only?.type === 'text') return only.text;
  return contentBlocks(parts);
}

/** A pending call; an approval says so, since it is decided through the ledger rather than answered. */
export function toolCallView(entry: LedgerEntryRecord) {
  return {
    id: entry.id,
    type: 'function' as const,
    name: entry.toolName,
    input: entry.arguments,
    ...(entry.kind === 'approval' ? { kind: 'approval' as const } : {}),
  };
}

export function threadView(state: ConversationState) {
  const { conversation } = state;
  return {
    id: conversation.id,
    object: 'thread',
    agent: conversation.agentName,
    status: state.status,
    pending_tool_calls: state.pendingCalls.map((entry) => ({ ...toolCallView(entry), deadline_at: entry.deadlineAt })),
    metadata: conversation.metadata,
    created_at: conversation.createdAt,
    updated_at: conversation.updatedAt,
  };
}

/** The answer to POST /v1/threads/{id}/messages: the seed's `{id, thread_id, choices:[…]}`. */
export function messageResponseView(threadId: string, outcome: TurnOutcome) {
  const { turn } = outcome;
  const toolCalls = outcome.pendingCalls.map(toolCallView);
  return {
    id: outcome.replyGroupId,
    object: 'thread.message',
    thread_id: threadId,
    turn_id: turn.id,
    created_at: turn.updatedAt,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant' as const,
          content: outcome.text,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: turn.finishReason ?? 'stop',
      },
    ],
    usage: usageView(turn.usage),
  };
}

/** Token counts; cached and reasoning tokens appear when the provider reported them. */
export function usageView(usage: TurnUsage) {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cachedInputTokens !== undefined ? { cached_input_tokens: usage.cachedInputTokens } : {}),
    ...(usage.reasoningTokens !== undefined ? { reasoning_tokens: usage.reasoningTokens } : {}),
  };
}

export type MessageView = {
  id: string;
  object: 'thread.message';
  role: 'user' | 'assistant' | 'system';
  content: unknown;
  tool_calls?: { id: string; type: 'function'; name: string; input: JsonValue }[];
  /** What the model showed of its reasoning before this reply (thinking or a summary); never its signature. */
  reasoning?: string;
  turn_id: string;
  created_at: string;
};

function parseInput(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * Groups items into messages: a user message, an assistant reply with its calls, or one message
 * of tool results. Calls that failed validation and their answers stay internal: the model saw
 * them, the client never does.
 */
export function messagesView(items: readonly ItemRecord[]): MessageView[] {
  const messages: MessageView[] = [];
  const byGroup = new Map<string, MessageView>();
  for (const item of items) {
    const payload = item.payload;
    if (payload.type === 'function_call' && payload.executor === 'invalid') continue;
    if (payload.type === 'function_call_output' && item.groupId.endsWith('_invalid')) continue;
    let message = byGroup.get(item.groupId);
    if (!message) {
      const role =
        payload.type === 'function_call' ||
        payload.type === 'reasoning' ||
        (payload.type === 'message' && payload.role === 'assistant')
          ? 'assistant'
          : payload.type === 'message' && payload.role === 'system'
            ? 'system'
            : 'user';
      message = {
        id: item.groupId,
        object: 'thread.message',
        role,
        content: role === 'assistant' ? null : [],
        turn_id: item.turnId,
        created_at: item.createdAt,
      };
      byGroup.set(item.groupId, message);
      messages.push(message);
    }
    if (payload.type === 'reasoning') {
      if (payload.text !== '')
        message.reasoning = message.reasoning ? `${message.reasoning}\n\n${payload.text}` : payload.text;
    } else if (payload.type === 'message') {
      message.content =
        message.role === 'assistant'
          ? payload.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
          : contentValue(payload.content);
    } else if (payload.type === 'function_call') {
      // Calls Baton ran itself are shown too, marked, so a client never mistakes them for its own.
      (message.tool_calls ??= []).push({
        id: payload.callId,
        type: 'function',
        name: payload.name,
        input: parseInput(payload.arguments),
        ...(payload.executor !== 'client' ? { executor: payload.executor } : {}),
      });
    } else {
      (message.content as unknown[]).push({
        type: 'tool_result',
        tool_call_id: payload.callId,
        content: contentValue(payload.output),
        ...(payload.isError ? { is_error: true } : {}),
        ...(payload.synthetic ? { synthetic: true } : {}),
      });
    }
  }
  return messages;
}

export function ledgerEntryView(entry: LedgerEntryRecord) {
  return {
    object: 'tool_call',
    id: entry.id,
    type: 'function',
    name: entry.toolName,
    input: entry.arguments,
    arguments_hash: entry.argumentsHash,
    kind: entry.kind,
    state: entry.state,
    thread_id: entry.conversationId,
    turn_id: entry.turnId,
    agent: entry.agentName,
    deadline_at: entry.deadlineAt,
    timeout_policy: entry.timeoutPolicy,
    result: entry.result === null ? null : { content: contentValue(entry.result), is_error: entry.isError },
    submitted_by: entry.submittedBy,
    submitted_at: entry.submittedAt,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
    executor: entry.worker ? ('worker' as const) : ('client' as const),
    ...(entry.worker
      ? {
          attempts: entry.worker.attempts,
          max_attempts: entry.worker.maxAttempts,
          // The token is the holder's alone: views others read show who holds the call, not how.
          // A resolved call is held by nobody; who answered it is `submitted_by`.
          lease:
            entry.state === 'pending' && entry.worker.lease
              ? {
                  holder: entry.worker.lease.holder,
                  key_id: entry.worker.lease.keyId,
                  claimed_at: entry.worker.lease.claimedAt,
                  expires_at: entry.worker.lease.expiresAt,
                }
              : null,
        }
      : {}),
  };
}

/** A call as its claiming worker sees it (a claim, a renewal): the ledger entry with its lease's token. */
export function claimedCallView(entry: LedgerEntryRecord) {
  const view = ledgerEntryView(entry);
  const lease = entry.worker?.lease;
  return { ...view, lease: lease ? { token: lease.token, ...view.lease } : null };
}
