import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isMalformedJson, startFakeHttpServer, writeJson, writeSse } from './fake-http-server.ts';
import type { FakeRequestHandler } from './fake-http-server.ts';
import { chunkText, estimateTokens } from './fake-reply-text.ts';
import type {
  ModelScript,
  ProviderFake,
  Rejection,
  ScriptCall,
  ScriptReply,
  ScriptToolResult,
  ScriptView,
} from './provider-fake.ts';

/**
 * A local stand-in for Anthropic's Messages API (`POST {baseURL}/messages`, baseURL ending in `/v1`).
 *
 * It answers as Anthropic documents: SSE (`message_start`, `content_block_start`/`_delta`/`_stop`,
 * `ping`, `message_delta`, `message_stop`) when the body says `stream: true`, one JSON `message`
 * otherwise. With `thinking: {type: "enabled", budget_tokens}` the reply starts with a `thinking`
 * block whose `signature` the fake mints (an HMAC over the thinking text under a per-fake key) and
 * remembers, so it can insist the exact block comes back.
 *
 * Every request is checked against the rules Anthropic enforces, and a violation is refused with
 * Anthropic's status, its `{"type":"error","error":{...}}` envelope and its wording:
 * - `x-api-key` (401 `authentication_error`), `anthropic-version`, `model`, `max_tokens`, `messages`;
 * - the first message is `user` and roles alternate; only a final `assistant` message may be empty;
 *   text blocks are non-empty; a final assistant message has no trailing whitespace;
 * - `thinking.enabled.budget_tokens` ≥ 1024 and < `max_tokens`; no forced `tool_choice` and no
 *   `temperature` other than 1 while thinking;
 * - every `thinking` block carries the signature the fake issued for exactly that text, every
 *   `redacted_thinking` block carries `data` the fake issued;
 * - every `tool_use` is answered by a `tool_result` at the start of the very next message, and every
 *   `tool_result` answers a `tool_use` of the previous message;
 * - with thinking `enabled`, the assistant turn in progress (the tool-use loop the request continues)
 *   starts with a `thinking`/`redacted_thinking` block; with thinking off, a final assistant message
 *   holds none.
 */

export interface AnthropicMessagesFakeOptions {
  /** When set, `x-api-key` must equal it (otherwise 401 `invalid x-api-key`); by default any non-empty key is accepted. */
  apiKey?: string;
  /**
   * Answer reasoning as a `redacted_thinking` block (opaque `data`, minted and verified like a
   * signature) instead of a `thinking` block, as Anthropic does when its safety systems flag the
   * reasoning. A function decides per request.
   */
  redactThinking?: boolean | ((view: ScriptView) => boolean);
  /**
   * Thinking text for a reply that begins a new assistant turn while thinking is `enabled` and the
   * script gives no reasoning: with manual extended thinking Claude always thinks first, so the fake
   * does too (which keeps the conversation acceptable on the next request). `false` turns this off.
   */
  defaultThinking?: string | false;
  /** Reported as `usage.cache_creation_input_tokens` (default 0). */
  cacheCreationInputTokens?: number;
  /** Characters per streamed `text_delta` / `thinking_delta` / `input_json_delta` (default 12). */
  chunkSize?: number;
}

/** A `thinking` block the fake emitted: its text and the signature minted for it. */
export interface IssuedThinking {
  readonly thinking: string;
  readonly signature: string;
}

/** A `redacted_thinking` block the fake emitted: its opaque `data` and the reasoning it stands for. */
export interface IssuedRedactedThinking {
  readonly data: string;
  readonly thinking: string;
}

export interface AnthropicMessagesFake extends ProviderFake {
  /** `{baseURL}/messages`, for tests that post raw bodies. */
  readonly url: string;
  /** Every thinking block emitted, in order. */
  readonly issuedThinking: readonly IssuedThinking[];
  /** Every redacted_thinking block emitted, in order. */
  readonly issuedRedactedThinking: readonly IssuedRedactedThinking[];
  /** Every `toolu_…` id minted, in order. */
  readonly issuedToolUseIds: readonly string[];
  /** Whether `signature` is one this fake minted for exactly `thinking`. */
  verifySignature(thinking: string, signature: string): boolean;
}

type Json = any;

interface Refusal {
  status: number;
  type: string;
  message: string;
}

const THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
const DEFAULT_THINKING = 'Let me work out what is being asked and which tool answers it.';
const INTERLEAVED_BETA = 'interleaved-thinking-2025-05-14';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function randomId(prefix: string, length = 22): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const byte of bytes) out += BASE62[byte % 62];
  return out;
}

function invalid(message: string): Refusal {
  return { status: 400, type: 'invalid_request_error', message };
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A message's content as blocks (a string is one text block). */
function blocksOf(message: Json): Json[] {
  const content = message?.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

function toolUseIdsOf(message: Json): string[] {
  if (message?.role !== 'assistant') return [];
  return blocksOf(message)
    .filter((block) => block?.type === 'tool_use')
    .map((block) => String(block.id));
}

function hasToolResult(message: Json): boolean {
  return message?.role === 'user' && blocksOf(message).some((block) => block?.type === 'tool_result');
}

function isThinkingBlock(block: Json): boolean {
  return block?.type === 'thinking' || block?.type === 'redacted_thinking';
}

function headerValue(headers: IncomingMessage['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

export async function startAnthropicMessagesFake(
  script: ModelScript,
  options: AnthropicMessagesFakeOptions = {},
): Promise<AnthropicMessagesFake> {
  const key = randomBytes(32);
  const rejections: Rejection[] = [];
  const issuedThinking: IssuedThinking[] = [];
  const issuedRedactedThinking: IssuedRedactedThinking[] = [];
  const issuedToolUseIds: string[] = [];
  const signatureText = new Map<string, string>();
  const redactedText = new Map<string, string>();
  const chunkSize = Math.max(1, options.chunkSize ?? 12);
  let accepted = 0;

  const mac = (purpose: string, nonce: Buffer, text: string): Buffer =>
    createHmac('sha256', key).update(purpose).update('\0').update(nonce).update('\0').update(text, 'utf8').digest();

  const mint = (purpose: string, text: string): string => {
    const nonce = randomBytes(16);
    return Buffer.concat([nonce, mac(purpose, nonce, text)]).toString('base64');
  };

  const verify = (purpose: string, text: string, token: string): boolean => {
    const raw = Buffer.from(token, 'base64');
    if (raw.length !== 48 || raw.toString('base64') !== token) return false;
    const expected = mac(purpose, raw.subarray(0, 16), text);
    return timingSafeEqual(expected, raw.subarray(16));
  };

  const verifySignature = (thinking: string, signature: string): boolean =>
    signatureText.get(signature) === thinking && verify('thinking', thinking, signature);

  const verifyRedacted = (data: string): boolean => {
    const text = redactedText.get(data);
    return text !== undefined && verify('redacted_thinking', text, data);
  };

  /** Checks the body against Anthropic's rules; the first violation found, or null. */
  const validate = (body: Json, headers: IncomingMessage['headers']): Refusal | null => {
    if (!isObject(body)) return invalid('There was an error parsing the body.');
    if (typeof body.model !== 'string' || body.model === '') return invalid('model: Field required');
    if (body.max_tokens === undefined) return invalid('max_tokens: Field required');
    if (!Number.isInteger(body.max_tokens)) return invalid('max_tokens: Input should be a valid integer');
    if (body.max_tokens < 1) return invalid('max_tokens: Input should be greater than or equal to 1');
    if (body.messages === undefined) return invalid('messages: Field required');
    if (!Array.isArray(body.messages)) return invalid('messages: Input should be a valid list');
    const messages: Json[] = body.messages;
    if (messages.length === 0) return invalid('messages: at least one message is required');

    // Thinking configuration.
    const thinking = body.thinking;
    const thinkingType: unknown = isObject(thinking) ? thinking.type : undefined;
    if (thinking !== undefined) {
      if (!isObject(thinking)) return invalid('thinking: Input should be a valid dictionary or object');
      if (thinkingType !== 'enabled' && thinkingType !== 'disabled' && thinkingType !== 'adaptive') {
        return invalid(
          `thinking: Input tag '${String(thinkingType)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`,
        );
      }
      if (thinkingType === 'enabled') {
        const budget: unknown = thinking.budget_tokens;
        if (budget === undefined) return invalid('thinking.enabled.budget_tokens: Field required');
        if (!Number.isInteger(budget))
          return invalid('thinking.enabled.budget_tokens: Input should be a valid integer');
        if ((budget as number) < 1024) {
          return invalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
        }
        const betas = (headerValue(headers, 'anthropic-beta') ?? '').split(',').map((beta) => beta.trim());
        if ((budget as number) >= body.max_tokens && !betas.includes(INTERLEAVED_BETA)) {
          return invalid(
            `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ` +
              `${THINKING_DOCS}#max-tokens-and-context-window-size`,
          );
        }
      }
    }
    const thinkingOn = thinkingType === 'enabled' || thinkingType === 'adaptive';
    if (thinkingType === 'enabled') {
      const choice: unknown = isObject(body.tool_choice) ? body.tool_choice.type : undefined;
      if (choice === 'any' || choice === 'tool') {
        return invalid('Thinking may not be enabled when tool_choice forces tool use.');
      }
    }
    if (thinkingOn && body.temperature !== undefined && body.temperature !== 1) {
      return invalid('`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode.');
    }

    // Tools.
    if (body.tools !== undefined) {
      if (!Array.isArray(body.tools)) return invalid('tools: Input should be a valid list');
      const names = new Set<string>();
      for (let k = 0; k < body.tools.length; k++) {
        const tool: Json = body.tools[k];
        if (!isObject(tool)) return invalid(`tools.${k}: Input should be a valid dictionary or object`);
        if (tool.type === undefined || tool.type === 'custom') {
          if (typeof tool.name !== 'string') return invalid(`tools.${k}.custom.name: Field required`);
          if (!/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) {
            return invalid(`tools.${k}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
          }
          if (!isObject(tool.input_schema)) return invalid(`tools.${k}.custom.input_schema: Field required`);
        }
        if (typeof tool.name === 'string') {
          if (names.has(tool.name)) return invalid('tools: Tool names must be unique.');
          names.add(tool.name);
        }
      }
    }

    // Message shape, roles and alternation.
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      if (!isObject(message)) return invalid(`messages.${i}: Input should be a valid dictionary or object`);
      if (message.role === undefined) return invalid(`messages.${i}.role: Field required`);
      if (message.role !== 'user' && message.role !== 'assistant') {
        return invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
      }
      if (message.content === undefined) return invalid(`messages.${i}.content: Field required`);
      if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
        return invalid(`messages.${i}.content: Input should be a valid string`);
      }
      if (i === 0 && message.role !== 'user') return invalid('messages: first message must use the "user" role');
      if (i > 0 && messages[i - 1].role === message.role) {
        return invalid(
          `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`,
        );
      }
      const finalAssistant = i === messages.length - 1 && message.role === 'assistant';
      if (message.content.length === 0 && !finalAssistant) {
        return invalid(
          `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
        );
      }
      if (Array.isArray(message.content)) {
        for (let j = 0; j < message.content.length; j++) {
          const block: Json = message.content[j];
          const at = `messages.${i}.content.${j}`;
          if (!isObject(block)) return invalid(`${at}: Input should be a valid dictionary or object`);
          if (typeof block.type !== 'string') return invalid(`${at}.type: Field required`);
          switch (block.type) {
            case 'text':
              if (typeof block.text !== 'string') return invalid(`${at}.text.text: Field required`);
              if (block.text === '') return invalid('messages: text content blocks must be non-empty');
              break;
            case 'tool_use':
              if (message.role !== 'assistant')
                return invalid(`${at}: tool_use blocks can only be in assistant messages`);
              if (typeof block.id !== 'string') return invalid(`${at}.tool_use.id: Field required`);
              if (typeof block.name !== 'string') return invalid(`${at}.tool_use.name: Field required`);
              if (!isObject(block.input)) return invalid(`${at}.tool_use.input: Input should be a valid dictionary`);
              break;
            case 'tool_result':
              if (message.role !== 'user') return invalid(`${at}: tool_result blocks can only be in user messages`);
              if (typeof block.tool_use_id !== 'string')
                return invalid(`${at}.tool_result.tool_use_id: Field required`);
              break;
            case 'thinking':
              if (typeof block.thinking !== 'string') return invalid(`${at}.thinking.thinking: Field required`);
              if (block.signature === undefined) return invalid(`${at}.thinking.signature: Field required`);
              if (typeof block.signature !== 'string' || !verifySignature(block.thinking, block.signature)) {
                return invalid(`${at}: Invalid \`signature\` in \`thinking\` block`);
              }
              break;
            case 'redacted_thinking':
              if (block.data === undefined) return invalid(`${at}.redacted_thinking.data: Field required`);
              if (typeof block.data !== 'string' || !verifyRedacted(block.data)) {
                return invalid(`${at}: Invalid \`data\` in \`redacted_thinking\` block`);
              }
              break;
            default:
              break;
          }
        }
      } else if (message.content === '' && !finalAssistant) {
        return invalid('messages: text content blocks must be non-empty');
      }
    }

    // Tool use / tool result pairing: results answer the previous message and lead the next one.
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      if (message.role === 'user') {
        const asked = new Set(toolUseIdsOf(messages[i - 1]));
        const blocks = blocksOf(message);
        for (let j = 0; j < blocks.length; j++) {
          const block = blocks[j];
          if (block?.type === 'tool_result' && !asked.has(block.tool_use_id)) {
            return invalid(
              `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each ` +
                `\`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
            );
          }
        }
      } else {
        const ids = toolUseIdsOf(message);
        if (ids.length === 0) continue;
        const answered = new Set<string>();
        const next = messages[i + 1];
        if (next?.role === 'user') {
          for (const block of blocksOf(next)) {
            if (block?.type !== 'tool_result') break;
            answered.add(String(block.tool_use_id));
          }
        }
        const missing = ids.filter((id) => !answered.has(id));
        if (missing.length > 0) {
          return invalid(
            `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each ` +
              `\`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          );
        }
      }
    }

    // The assistant turn in progress: with thinking enabled it must open with a thinking block.
    const lastIndex = messages.length - 1;
    const last = messages[lastIndex];
    if (thinkingType === 'enabled') {
      let start = -1;
      if (last.role === 'assistant') start = lastIndex;
      else if (hasToolResult(last) && messages[lastIndex - 1]?.role === 'assistant') start = lastIndex - 1;
      if (start >= 0) {
        // Earlier steps of the same tool-use loop belong to the same assistant turn.
        while (start >= 2 && hasToolResult(messages[start - 1]) && messages[start - 2].role === 'assistant') start -= 2;
        const first = blocksOf(messages[start])[0];
        if (!isThinkingBlock(first)) {
          const found = first?.type ?? 'nothing';
          return invalid(
            `messages.${start}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` ` +
              `is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and ` +
              `\`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable ` +
              `\`thinking\`. Please consult our documentation at ${THINKING_DOCS}`,
          );
        }
      }
    } else if (!thinkingOn && last.role === 'assistant') {
      const blocks = blocksOf(last);
      const j = blocks.findIndex(isThinkingBlock);
      if (j >= 0) {
        return invalid(
          `messages.${lastIndex}.content.${j}: When thinking is disabled, an \`assistant\` message in the final position cannot contain ` +
            `\`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
        );
      }
    }
    if (last.role === 'assistant') {
      const textBlocks = blocksOf(last).filter((block) => block?.type === 'text');
      const lastText = textBlocks[textBlocks.length - 1];
      if (lastText !== undefined && /\s$/.test(String(lastText.text))) {
        return invalid('messages: final assistant content cannot end with trailing whitespace');
      }
    }
    return null;
  };

  const viewOf = (body: Json): ScriptView => {
    const messages: Json[] = body.messages;
    const last = messages[messages.length - 1];
    const previous = messages[messages.length - 2];
    const tools: string[] = Array.isArray(body.tools)
      ? body.tools
          .filter((tool: Json) => tool.type === undefined || tool.type === 'custom')
          .map((tool: Json) => String(tool.name))
      : [];
    let lastUserText: string | null = null;
    const toolResults: ScriptToolResult[] = [];
    if (last.role === 'user') {
      const blocks = blocksOf(last);
      const results = blocks.filter((block) => block.type === 'tool_result');
      if (results.length === 0) {
        const texts = blocks.filter((block) => block.type === 'text').map((block) => String(block.text));
        if (texts.length > 0) lastUserText = texts.join('\n');
      }
      const names = new Map<string, string>();
      for (const block of blocksOf(previous)) {
        if (block.type === 'tool_use') names.set(String(block.id), String(block.name));
      }
      for (const result of results) {
        const parts: Json[] =
          typeof result.content === 'string'
            ? [{ type: 'text', text: result.content }]
            : Array.isArray(result.content)
              ? result.content
              : [];
        const mediaTypes: string[] = [];
        const output = parts
          .map((part) => {
            if (part.type === 'text') return String(part.text);
            const mediaType: unknown = part.source?.media_type;
            if (part.type === 'image') {
              mediaTypes.push(typeof mediaType === 'string' ? mediaType : 'image/*');
              return '[image]';
            }
            if (typeof mediaType === 'string') mediaTypes.push(mediaType);
            return '[file]';
          })
          .join('\n');
        toolResults.push({
          callId: String(result.tool_use_id),
          name: names.get(String(result.tool_use_id)),
          output,
          isError: result.is_error === true,
          mediaTypes,
        });
      }
    }
    const thinkingType: unknown = body.thinking?.type;
    return {
      model: body.model,
      requestIndex: accepted,
      tools,
      lastUserText,
      toolResults,
      reasoningRequested: thinkingType === 'enabled' || thinkingType === 'adaptive',
      body,
    };
  };

  /** What the model says, as Anthropic content blocks, plus the usage to report. */
  const compose = (body: Json, view: ScriptView, reply: ScriptReply) => {
    const calls: ScriptCall[] = reply.calls ?? [];
    for (const call of calls) {
      if (!view.tools.includes(call.name)) {
        throw new Error(
          `script called tool "${call.name}", which the request does not offer (${view.tools.join(', ')})`,
        );
      }
    }
    const choice: Json = body.tool_choice;
    if (calls.length > 0 && choice?.type === 'none')
      throw new Error('script called a tool although tool_choice is none');
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
        const data = mint('redacted_thinking', reasoning);
        redactedText.set(data, reasoning);
        issuedRedactedThinking.push({ data, thinking: reasoning });
        content.push({ type: 'redacted_thinking', data });
      } else {
        const signature = mint('thinking', reasoning);
        signatureText.set(signature, reasoning);
        issuedThinking.push({ thinking: reasoning, signature });
        content.push({ type: 'thinking', thinking: reasoning, signature });
      }
    }
    if (reply.text !== undefined && reply.text !== '') content.push({ type: 'text', text: reply.text });
    for (const call of calls) {
      const id = randomId('toolu_01');
      issuedToolUseIds.push(id);
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
  };

  const streamEvents = (message: Json): Json[] => {
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
  };

  const handle: FakeRequestHandler = (record, raw, req, res) => {
    const parsed = !isMalformedJson(record, raw);
    // Unlike the other fakes, this one records a body that is not JSON as the text that was sent.
    if (!parsed) record.body = raw;
    const body: Json = record.body;
    const requestId = randomId('req_011C', 20);

    const sendJson = (status: number, payload: unknown): void =>
      writeJson(res, status, payload, { 'content-type': 'application/json', 'request-id': requestId });
    const refuse = (refusal: Refusal): void => {
      const payload = { type: 'error', error: { type: refusal.type, message: refusal.message }, request_id: requestId };
      rejections.push({ request: record, status: refusal.status, body: payload });
      sendJson(refusal.status, payload);
    };

    const pathname = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method !== 'POST' || pathname !== '/v1/messages') {
      refuse({ status: 404, type: 'not_found_error', message: 'Not Found' });
      return;
    }
    const apiKey = headerValue(req.headers, 'x-api-key');
    if (apiKey === undefined || apiKey === '') {
      refuse({ status: 401, type: 'authentication_error', message: 'x-api-key header is required' });
      return;
    }
    if (options.apiKey !== undefined && apiKey !== options.apiKey) {
      refuse({ status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
      return;
    }
    if (!headerValue(req.headers, 'anthropic-version')) {
      refuse(invalid('anthropic-version: header is required'));
      return;
    }
    const refusal = parsed ? validate(body, req.headers) : invalid('There was an error parsing the body.');
    if (refusal !== null) {
      refuse(refusal);
      return;
    }

    let message: Json;
    try {
      const view = viewOf(body);
      const { content, usage, stopReason } = compose(body, view, script(view));
      message = {
        id: randomId('msg_01'),
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      };
    } catch (error) {
      refuse({ status: 500, type: 'api_error', message: `fake script failed: ${(error as Error).message}` });
      return;
    }
    accepted += 1;

    if (body.stream === true) {
      writeSse(
        res,
        { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId },
        streamEvents(message).map((event) => ({ event: event.type, data: JSON.stringify(event) })),
      );
      return;
    }
    sendJson(200, message);
  };

  const server = await startFakeHttpServer(handle);
  const baseURL = `${server.origin}/v1`;

  return {
    baseURL,
    url: `${baseURL}/messages`,
    requests: server.requests,
    rejections,
    issuedThinking,
    issuedRedactedThinking,
    issuedToolUseIds,
    verifySignature,
    close: server.close,
  };
}
