import type { IncomingMessage } from 'node:http';

/**
 * The Messages API's request rules, as the Anthropic fake (`anthropic-messages-fake.ts`, whose doc
 * comment lists them) enforces them: each check returns the first violation as a `Refusal` with
 * Anthropic's status, error type and wording, which the fake sends back in Anthropic's envelope.
 */

export type Json = any;

export interface Refusal {
  status: number;
  type: string;
  message: string;
}

/** Whether a thinking block or redacted data that came back is one the fake issued, for exactly that text. */
export interface ThinkingVerifier {
  verifySignature(thinking: string, signature: string): boolean;
  verifyRedacted(data: string): boolean;
}

const THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
const INTERLEAVED_BETA = 'interleaved-thinking-2025-05-14';

export function invalid(message: string): Refusal {
  return { status: 400, type: 'invalid_request_error', message };
}

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A message's content as blocks (a string is one text block). */
export function blocksOf(message: Json): Json[] {
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

export function hasToolResult(message: Json): boolean {
  return message?.role === 'user' && blocksOf(message).some((block) => block?.type === 'tool_result');
}

function isThinkingBlock(block: Json): boolean {
  return block?.type === 'thinking' || block?.type === 'redacted_thinking';
}

export function headerValue(headers: IncomingMessage['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The headers every request needs: an `x-api-key` (exactly `apiKey` when one is configured) and an `anthropic-version`. */
export function checkHeaders(headers: IncomingMessage['headers'], apiKey: string | undefined): Refusal | null {
  const key = headerValue(headers, 'x-api-key');
  if (key === undefined || key === '') {
    return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  }
  if (apiKey !== undefined && key !== apiKey) {
    return { status: 401, type: 'authentication_error', message: 'invalid x-api-key' };
  }
  if (!headerValue(headers, 'anthropic-version')) return invalid('anthropic-version: header is required');
  return null;
}

/**
 * Checks the body against Anthropic's rules; the first violation found, or null. `issued` tells
 * which thinking signatures and redacted data the fake issued.
 */
export function validateRequest(
  body: Json,
  headers: IncomingMessage['headers'],
  issued: ThinkingVerifier,
): Refusal | null {
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
      if (!Number.isInteger(budget)) return invalid('thinking.enabled.budget_tokens: Input should be a valid integer');
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
            if (typeof block.tool_use_id !== 'string') return invalid(`${at}.tool_result.tool_use_id: Field required`);
            break;
          case 'thinking':
            if (typeof block.thinking !== 'string') return invalid(`${at}.thinking.thinking: Field required`);
            if (block.signature === undefined) return invalid(`${at}.thinking.signature: Field required`);
            if (typeof block.signature !== 'string' || !issued.verifySignature(block.thinking, block.signature)) {
              return invalid(`${at}: Invalid \`signature\` in \`thinking\` block`);
            }
            break;
          case 'redacted_thinking':
            if (block.data === undefined) return invalid(`${at}.redacted_thinking.data: Field required`);
            if (typeof block.data !== 'string' || !issued.verifyRedacted(block.data)) {
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
}
