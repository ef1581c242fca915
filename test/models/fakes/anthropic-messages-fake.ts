import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { composeReply, streamEvents } from './anthropic-reply-writer.ts';
import type { ReplyMint } from './anthropic-reply-writer.ts';
import { blocksOf, checkHeaders, invalid, validateRequest } from './anthropic-request-rules.ts';
import type { Json, Refusal } from './anthropic-request-rules.ts';
import { isMalformedJson, startFakeHttpServer, writeJson, writeSse } from './fake-http-server.ts';
import type { FakeRequestHandler } from './fake-http-server.ts';
import type { ModelScript, ProviderFake, Rejection, ScriptToolResult, ScriptView } from './provider-fake.ts';

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

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function randomId(prefix: string, length = 22): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const byte of bytes) out += BASE62[byte % 62];
  return out;
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

  // What a reply mints is remembered here, where `validateRequest` checks what comes back against it.
  const replyMint: ReplyMint = {
    thinkingSignature: (thinking) => {
      const signature = mint('thinking', thinking);
      signatureText.set(signature, thinking);
      issuedThinking.push({ thinking, signature });
      return signature;
    },
    redactedData: (thinking) => {
      const data = mint('redacted_thinking', thinking);
      redactedText.set(data, thinking);
      issuedRedactedThinking.push({ data, thinking });
      return data;
    },
    toolUseId: () => {
      const id = randomId('toolu_01');
      issuedToolUseIds.push(id);
      return id;
    },
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
    const headerRefusal = checkHeaders(req.headers, options.apiKey);
    if (headerRefusal !== null) {
      refuse(headerRefusal);
      return;
    }
    const refusal = parsed
      ? validateRequest(body, req.headers, { verifySignature, verifyRedacted })
      : invalid('There was an error parsing the body.');
    if (refusal !== null) {
      refuse(refusal);
      return;
    }

    let message: Json;
    try {
      const view = viewOf(body, accepted);
      const { content, usage, stopReason } = composeReply(body, view, script(view), options, replyMint);
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
        streamEvents(message, chunkSize).map((event) => ({ event: event.type, data: JSON.stringify(event) })),
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

/** What the script sees of a request that passed the rules; `requestIndex` counts the requests accepted before it. */
function viewOf(body: Json, requestIndex: number): ScriptView {
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
    requestIndex,
    tools,
    lastUserText,
    toolResults,
    reasoningRequested: thinkingType === 'enabled' || thinkingType === 'adaptive',
    body,
  };
}
