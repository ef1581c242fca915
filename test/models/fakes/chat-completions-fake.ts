import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { startFakeHttpServer, writeJson, writeSse } from './fake-http-server.ts';
import type { SseEvent } from './fake-http-server.ts';
import { chunkText, estimateTokens } from './fake-reply-text.ts';
import {
  INVALID_JSON_MESSAGE,
  OpenAIError,
  checkBearerKey,
  checkModelAvailable,
  missingParameter,
  randomAlphanumeric,
  serveOpenAIRoute,
} from './openai-platform.ts';
import type {
  ModelScript,
  ProviderFake,
  Rejection,
  ScriptReply,
  ScriptToolResult,
  ScriptView,
} from './provider-fake.ts';

/**
 * A local stand-in for the OpenAI Chat Completions API as local servers (Ollama, vLLM, LM Studio)
 * serve it at `POST {baseURL}/chat/completions`, as `@ai-sdk/openai-compatible` calls it. It streams
 * `chat.completion.chunk` events (`data: {...}` lines, then `data: [DONE]`), with reasoning in
 * `delta.reasoning_content` (vLLM, DeepSeek) or `delta.reasoning` (Ollama, newer vLLM), tool calls
 * as indexed `tool_calls` deltas, and a usage chunk when `stream_options.include_usage` is set.
 *
 * It enforces the Chat Completions rules on the message history with OpenAI's status, envelope and
 * wording (quoted from error bodies OpenAI returned, as found in public bug reports):
 * - an assistant message with `tool_calls` must be followed by one tool message per call id;
 * - a tool message must answer a call of the assistant message right before the tool messages;
 * - basics: bearer key, model, a non-empty `messages` array of well-formed messages.
 */

export interface ChatCompletionsFakeOptions {
  /**
   * Bearer key handling. Omitted: any non-empty bearer key is accepted and a missing one is refused
   * with 401. A string: only that key is accepted. `false`: no auth, as Ollama and LM Studio serve.
   */
  apiKey?: string | false;
  /** When set, a model outside this list is refused with 404. */
  models?: string[];
  /**
   * The delta field reasoning is streamed in: `reasoning_content` (vLLM, DeepSeek; the default) or
   * `reasoning` (Ollama, recent vLLM). `@ai-sdk/openai-compatible` reads both.
   */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** Characters per streamed content / reasoning / arguments delta. Default 8. */
  chunkSize?: number;
}

export interface ChatCompletionsFake extends ProviderFake {
  /** The tool call ids the fake issued, in order. */
  issuedToolCallIds(): string[];
}

type Json = Record<string, any>;

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A message's text: a string, or the text of its `text` parts; non-text parts as `[image]`/`[file]`. */
function messageContent(content: unknown): { text: string | null; mediaTypes: string[] } {
  if (typeof content === 'string') return { text: content, mediaTypes: [] };
  if (!Array.isArray(content)) return { text: null, mediaTypes: [] };
  const texts: string[] = [];
  const mediaTypes: string[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'image_url') {
      texts.push('[image]');
      const url = isObject(part.image_url) ? part.image_url.url : part.image_url;
      mediaTypes.push((typeof url === 'string' ? /^data:([^;,]+)/.exec(url)?.[1] : undefined) ?? 'image/*');
    } else if (part.type === 'file' || part.type === 'input_audio') {
      texts.push('[file]');
      mediaTypes.push('application/octet-stream');
    }
  }
  return { text: texts.length > 0 ? texts.join('') : null, mediaTypes };
}

/** Checks each message's shape. */
function checkMessages(messages: unknown): asserts messages is Json[] {
  if (messages == null) throw missingParameter('messages');
  if (!Array.isArray(messages)) {
    throw new OpenAIError(
      400,
      "Invalid type for 'messages': expected an array, but got an object instead.",
      'messages',
      'invalid_type',
    );
  }
  if (messages.length === 0) throw new OpenAIError(400, "[] is too short - 'messages'", 'messages');
  messages.forEach((message: unknown, i) => {
    if (!isObject(message)) {
      throw new OpenAIError(
        400,
        `Invalid type for 'messages[${i}]': expected an object, but got ${typeof message} instead.`,
        `messages[${i}]`,
        'invalid_type',
      );
    }
    if (!ROLES.includes(message.role)) {
      throw new OpenAIError(
        400,
        `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        'invalid_value',
      );
    }
    if (message.role === 'tool' && (typeof message.tool_call_id !== 'string' || message.tool_call_id === '')) {
      throw new OpenAIError(
        400,
        "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
        `messages.[${i}].tool_call_id`,
      );
    }
    const hasToolCalls = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    if (message.content == null && !(message.role === 'assistant' && hasToolCalls)) {
      throw new OpenAIError(
        400,
        "Invalid value for 'content': expected a string, got null.",
        `messages.[${i}].content`,
      );
    }
    if (message.tool_calls != null) {
      if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) {
        throw new OpenAIError(
          400,
          `Invalid type for 'messages[${i}].tool_calls': expected an array.`,
          `messages[${i}].tool_calls`,
          'invalid_type',
        );
      }
      message.tool_calls.forEach((call: unknown, j) => {
        const where = `messages[${i}].tool_calls[${j}]`;
        const fields: [string, unknown][] = isObject(call)
          ? [
              ['id', call.id],
              ['type', call.type],
              ['function', call.function],
              ['function.name', isObject(call.function) ? call.function.name : undefined],
              ['function.arguments', isObject(call.function) ? call.function.arguments : undefined],
            ]
          : [['id', undefined]];
        for (const [field, value] of fields) {
          if (value == null) throw missingParameter(`${where}.${field}`);
        }
      });
    }
  });
}

/** The tool-call pairing rules of Chat Completions. */
function checkToolPairing(messages: Json[]): void {
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    if (message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      const pending = message.tool_calls.map((call: Json) => String(call.id));
      let j = i + 1;
      while (messages[j]?.role === 'tool') {
        const id = String(messages[j]!.tool_call_id);
        const at = pending.indexOf(id);
        if (at < 0) {
          throw new OpenAIError(
            400,
            `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
            `messages.[${j}].tool_call_id`,
          );
        }
        pending.splice(at, 1);
        j++;
      }
      if (pending.length > 0) {
        throw new OpenAIError(
          400,
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following ` +
            `tool_call_ids did not have response messages: ${pending.join(', ')}`,
          j < messages.length ? `messages.[${j}].role` : 'messages',
        );
      }
      i = j;
      continue;
    }
    if (message.role === 'tool') {
      throw new OpenAIError(
        400,
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        `messages.[${i}].role`,
      );
    }
    i++;
  }
}

export async function startChatCompletionsFake(
  script: ModelScript,
  options: ChatCompletionsFakeOptions = {},
): Promise<ChatCompletionsFake> {
  const chunkSize = Math.max(1, options.chunkSize ?? 8);
  const reasoningField = options.reasoningField ?? 'reasoning_content';
  const rejections: Rejection[] = [];
  const issuedCallIds: string[] = [];
  let accepted = 0;

  function checkBasics(body: unknown, headers: IncomingMessage['headers']): asserts body is Json {
    if (options.apiKey !== false) checkBearerKey(headers, options.apiKey);
    if (!isObject(body)) throw new OpenAIError(400, INVALID_JSON_MESSAGE);
    if (typeof body.model !== 'string' || body.model === '') {
      throw new OpenAIError(400, 'you must provide a model parameter');
    }
    checkModelAvailable(body.model, options.models);
    checkMessages(body.messages);
    checkToolPairing(body.messages);
  }

  function buildView(body: Json): ScriptView {
    const messages = body.messages as Json[];
    const tools = Array.isArray(body.tools)
      ? body.tools
          .filter((t: unknown) => isObject(t) && t.type === 'function' && isObject(t.function))
          .map((t: Json) => String(t.function.name))
      : [];
    const last = messages[messages.length - 1];
    const lastUserText = last?.role === 'user' ? messageContent(last.content).text : null;
    const toolResults: ScriptToolResult[] = [];
    let i = messages.length - 1;
    for (; i >= 0 && messages[i]!.role === 'tool'; i--) {
      const { text, mediaTypes } = messageContent(messages[i]!.content);
      toolResults.unshift({
        callId: messages[i]!.tool_call_id,
        name: undefined,
        output: text ?? '',
        isError: false,
        mediaTypes,
      });
    }
    const calls = (messages[i]?.tool_calls ?? []) as Json[];
    for (const result of toolResults) {
      result.name = calls.find((call) => call.id === result.callId)?.function?.name;
    }
    const effort = body.reasoning_effort;
    return {
      model: body.model,
      requestIndex: accepted,
      tools,
      lastUserText,
      toolResults,
      reasoningRequested:
        (effort != null && effort !== 'none') ||
        body.chat_template_kwargs?.enable_thinking === true ||
        body.think === true,
      body,
    };
  }

  function usageOf(body: Json, reply: ScriptReply, calls: Json[]): Json {
    const promptTokens =
      reply.usage?.inputTokens ?? Math.max(1, estimateTokens(JSON.stringify([body.messages, body.tools ?? []])));
    const reasoningTokens = reply.usage?.reasoningTokens ?? estimateTokens(reply.reasoning ?? '');
    const visible =
      estimateTokens(reply.text ?? '') + calls.reduce((n, call) => n + estimateTokens(call.function.arguments) + 5, 0);
    const completionTokens = reply.usage?.outputTokens ?? visible + reasoningTokens;
    return {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: reply.usage?.cachedInputTokens ?? 0 },
      completion_tokens_details: { reasoning_tokens: reasoningTokens },
    };
  }

  function handle(body: Json): { status: number; json?: unknown; sse?: SseEvent[] } {
    const reply = script(buildView(body));
    accepted++;
    const id = 'chatcmpl-' + randomAlphanumeric(29);
    const created = Math.floor(Date.now() / 1000);
    const fingerprint = 'fp_' + randomBytes(5).toString('hex');
    const calls = (reply.calls ?? []).map((call) => {
      const callId = 'call_' + randomAlphanumeric(24);
      issuedCallIds.push(callId);
      return { id: callId, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } };
    });
    const finishReason = calls.length > 0 ? 'tool_calls' : 'stop';
    const usage = usageOf(body, reply, calls);
    const reasoning = reply.reasoning != null && reply.reasoning !== '' ? reply.reasoning : undefined;

    if (body.stream !== true) {
      const message: Json = { role: 'assistant', content: reply.text ?? (calls.length > 0 ? null : '') };
      if (reasoning != null) message[reasoningField] = reasoning;
      if (calls.length > 0) message.tool_calls = calls;
      return {
        status: 200,
        json: {
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          system_fingerprint: fingerprint,
          choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
          usage,
        },
      };
    }

    const includeUsage = body.stream_options?.include_usage === true;
    const frame = (delta: Json, finish: string | null = null): Json => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: body.model,
      system_fingerprint: fingerprint,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
    const events: Json[] = [frame({ role: 'assistant', content: '' })];
    for (const piece of chunkText(reasoning ?? '', chunkSize)) events.push(frame({ [reasoningField]: piece }));
    for (const piece of chunkText(reply.text ?? '', chunkSize)) events.push(frame({ content: piece }));
    calls.forEach((call, index) => {
      events.push(
        frame({
          tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
        }),
      );
      for (const piece of chunkText(call.function.arguments, chunkSize)) {
        events.push(frame({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
    events.push(frame({}, finishReason));
    if (includeUsage) {
      events.push({
        id,
        object: 'chat.completion.chunk',
        created,
        model: body.model,
        system_fingerprint: fingerprint,
        choices: [],
        usage,
      });
    }
    return { status: 200, sse: [...events.map((event) => ({ data: JSON.stringify(event) })), { data: '[DONE]' }] };
  }

  const server = await startFakeHttpServer(
    serveOpenAIRoute('/v1/chat/completions', rejections, (body, req, res) => {
      checkBasics(body, req.headers);
      const answer = handle(body);
      if (answer.sse != null) {
        const headers = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
        writeSse(res, headers, answer.sse);
      } else {
        writeJson(res, answer.status, answer.json);
      }
    }),
  );

  return {
    baseURL: `${server.origin}/v1`,
    requests: server.requests,
    rejections,
    issuedToolCallIds: () => [...issuedCallIds],
    close: server.close,
  };
}
