import type { AnthropicMessagesFakeOptions } from './anthropic-messages-fake.ts';
import { hasToolResult } from './anthropic-request-rules.ts';
import type { Json } from './anthropic-request-rules.ts';
import { chunkText, estimateTokens } from './fake-reply-text.ts';
import type { ScriptCall, ScriptReply, ScriptView } from './provider-fake.ts';

/**
 * How the Anthropic fake turns a script's reply into Anthropic's answer: the content blocks (thinking
 * first, with what it mints for them) and usage, then, for a streaming request, the SSE events
 * Anthropic sends for that message.
 */

/**
 * What composing a reply mints. The fake remembers each, so its rules can insist that exactly what
 * it issued comes back.
 */
export interface ReplyMint {
  /** The signature of a `thinking` block holding `thinking`. */
  thinkingSignature(thinking: string): string;
  /** The opaque `data` of a `redacted_thinking` block standing for `thinking`. */
  redactedData(thinking: string): string;
  /** A `toolu_…` id. */
  toolUseId(): string;
}

const DEFAULT_THINKING = 'Let me work out what is being asked and which tool answers it.';

/** What the model says, as Anthropic content blocks, plus the usage to report. */
export function composeReply(
  body: Json,
  view: ScriptView,
  reply: ScriptReply,
  options: AnthropicMessagesFakeOptions,
  mint: ReplyMint,
) {
  const calls: ScriptCall[] = reply.calls ?? [];
  for (const call of calls) {
    if (!view.tools.includes(call.name)) {
      throw new Error(`script called tool "${call.name}", which the request does not offer (${view.tools.join(', ')})`);
    }
  }
  const choice: Json = body.tool_choice;
  if (calls.length > 0 && choice?.type === 'none') throw new Error('script called a tool although tool_choice is none');
  if (calls.length > 1 && choice?.disable_parallel_tool_use === true) {
    throw new Error('script made parallel calls although tool_choice.disable_parallel_tool_use is true');
  }
  const messages: Json[] = body.messages;
  const last = messages[messages.length - 1];
  const continuesLoop = hasToolResult(last) || last.role === 'assistant';
  let reasoning: string | undefined;
  if (view.reasoningRequested) {
    reasoning = reply.reasoning;
    if (reasoning === undefined && body.thinking.type === 'enabled' && !continuesLoop) {
      const fallback = options.defaultThinking ?? DEFAULT_THINKING;
      if (fallback !== false) reasoning = fallback;
    }
  }
  const content: Json[] = [];
  if (reasoning !== undefined) {
    const redact =
      typeof options.redactThinking === 'function' ? options.redactThinking(view) : options.redactThinking === true;
    if (redact) {
      const data = mint.redactedData(reasoning);
      content.push({ type: 'redacted_thinking', data });
    } else {
      const signature = mint.thinkingSignature(reasoning);
      content.push({ type: 'thinking', thinking: reasoning, signature });
    }
  }
  if (reply.text !== undefined && reply.text !== '') content.push({ type: 'text', text: reply.text });
  for (const call of calls) {
    const id = mint.toolUseId();
    content.push({ type: 'tool_use', id, name: call.name, input: call.arguments });
  }

  const promptText = JSON.stringify([body.system ?? '', body.messages, body.tools ?? []]);
  const totalInput = reply.usage?.inputTokens ?? estimateTokens(promptText);
  const cached = reply.usage?.cachedInputTokens ?? 0;
  const generated =
    (reasoning ?? '') + (reply.text ?? '') + calls.map((call) => JSON.stringify(call.arguments)).join('');
  const thinkingTokens =
    reply.usage?.reasoningTokens ?? (reasoning !== undefined ? estimateTokens(reasoning) : undefined);
  const usage: Json = {
    input_tokens: Math.max(0, totalInput - cached),
    cache_creation_input_tokens: options.cacheCreationInputTokens ?? 0,
    cache_read_input_tokens: cached,
    output_tokens: reply.usage?.outputTokens ?? Math.max(1, estimateTokens(generated)),
    ...(thinkingTokens !== undefined && { output_tokens_details: { thinking_tokens: thinkingTokens } }),
    service_tier: 'standard',
  };
  return { content, usage, stopReason: calls.length > 0 ? 'tool_use' : 'end_turn' };
}

/** The message as Anthropic's stream events, text cut into deltas of `chunkSize` characters. */
export function streamEvents(message: Json, chunkSize: number): Json[] {
  const events: Json[] = [];
  const { content, usage } = message;
  events.push({
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: 1,
        service_tier: usage.service_tier,
      },
    },
  });
  content.forEach((block: Json, index: number) => {
    const delta = (payload: Json) => events.push({ type: 'content_block_delta', index, delta: payload });
    switch (block.type) {
      case 'thinking':
        events.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        });
        break;
      case 'redacted_thinking':
        events.push({ type: 'content_block_start', index, content_block: block });
        break;
      case 'text':
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        break;
      case 'tool_use':
        events.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        break;
    }
    if (index === 0) events.push({ type: 'ping' });
    switch (block.type) {
      case 'thinking':
        for (const piece of chunkText(block.thinking, chunkSize)) delta({ type: 'thinking_delta', thinking: piece });
        delta({ type: 'signature_delta', signature: block.signature });
        break;
      case 'text':
        for (const piece of chunkText(block.text, chunkSize)) delta({ type: 'text_delta', text: piece });
        break;
      case 'tool_use':
        delta({ type: 'input_json_delta', partial_json: '' });
        for (const piece of chunkText(JSON.stringify(block.input), chunkSize)) {
          delta({ type: 'input_json_delta', partial_json: piece });
        }
        break;
    }
    events.push({ type: 'content_block_stop', index });
  });
  if (content.length === 0) events.push({ type: 'ping' });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage,
  });
  events.push({ type: 'message_stop' });
  return events;
}
