import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFakeHttpServer, writeJson, writeSse } from './fake-http-server.ts';
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
 * A local stand-in for OpenAI's Responses API (`POST {baseURL}/responses`), as `@ai-sdk/openai`
 * (v3, whose default `openai(model)` speaks it) calls it. It streams the documented SSE events
 * (`event:` + `data:` lines with `sequence_number`), answers plain JSON when the request does not
 * stream, and enforces the Responses API's rules on conversation state:
 *
 * - Store semantics: `store` defaults to true and every output item of a stored response can be
 *   referenced later as `{type: "item_reference", id}`; an unknown id is a 404. With `store: false`
 *   nothing is kept, so a reasoning item must come back by value with the `encrypted_content` the
 *   fake minted (an HMAC it can verify) when the request asked for `reasoning.encrypted_content`.
 * - A reasoning item must be followed by the item that followed it in the output, and an output
 *   item that came right after a reasoning item cannot be sent by id without that reasoning item.
 * - Every `function_call` has a later `function_call_output` with its `call_id`, and every
 *   `function_call_output` answers an earlier `function_call`.
 *
 * Violations are answered with OpenAI's status, envelope and wording (see the messages below;
 * they were taken from error bodies OpenAI returned, as quoted in public bug reports).
 */

export interface OpenAIResponsesFakeOptions {
  /**
   * The bearer key the fake accepts. When omitted, any non-empty bearer key is accepted (a missing
   * one is still refused with 401).
   */
  apiKey?: string;
  /** When set, a model outside this list is refused with OpenAI's 404 `model_not_found`. */
  models?: string[];
  /** Characters per streamed text / summary / arguments delta. Default 8. */
  chunkSize?: number;
}

/** One reasoning item's `encrypted_content` the fake issued. */
export interface IssuedEncryptedContent {
  itemId: string;
  encryptedContent: string;
  /** The reasoning text the content stands for. */
  reasoning: string;
}

export interface OpenAIResponsesFake extends ProviderFake {
  /** Every `encrypted_content` the fake minted, in order. */
  issuedEncryptedContent(): IssuedEncryptedContent[];
  /** Ids of the output items the fake stored (responses with `store` not false). */
  storedItemIds(): string[];
}

type Json = Record<string, any>;

/** What the fake remembers about one item it output. */
interface OutputRecord {
  id: string;
  type: 'reasoning' | 'message' | 'function_call';
  item: Json;
  callId?: string;
  /** The output item that came right after this one (for reasoning items: the required following item). */
  next?: { id: string; type: string; callId?: string };
  /** The reasoning item this one came right after, if any. */
  precedingReasoningId?: string;
  /** Whether the response it belongs to was stored. */
  stored: boolean;
}

interface StoredResponse {
  /** The full input the response answered (the previous_response_id chain expanded), then its output. */
  conversation: Json[];
}

/** An input item resolved for the rule checks. */
interface Entry {
  index: number;
  kind: 'reasoning' | 'message' | 'function_call' | 'function_call_output' | 'other';
  /** The output item id this entry stands for (by reference, by value with `id`, or through encrypted content). */
  id?: string;
  callId?: string;
  item: Json;
}

/** OpenAI-style ids: `rs_`/`msg_`/`fc_`/`resp_` + 50 hex characters, `call_` + 24 alphanumerics. */
function hexId(prefix: string): string {
  return prefix + randomBytes(25).toString('hex');
}

function callId(): string {
  return 'call_' + randomAlphanumeric(24);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** o-series and gpt-5+ (except the gpt-5-chat models) reason, as `@ai-sdk/openai` classifies them. */
export function isOpenAIReasoningModel(model: string): boolean {
  if (/^o\d+(?:-|$)/.test(model)) return true;
  const gpt = /^gpt-(\d+)(?:\.(\d+))?(?:-(.+))?$/.exec(model);
  if (gpt == null) return false;
  const major = Number(gpt[1]);
  const isChat = gpt[2] == null && (gpt[3]?.startsWith('chat') ?? false);
  return major >= 5 && !isChat;
}

/** The text of a message item's content (string, or the text of its input_text/output_text parts). */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content
    .filter((part): part is Json => isObject(part) && typeof part.text === 'string')
    .map((part) => part.text as string);
  return texts.length > 0 ? texts.join('') : null;
}

function mediaTypeOf(dataUrlOrUrl: unknown, fallback: string): string {
  if (typeof dataUrlOrUrl !== 'string') return fallback;
  const match = /^data:([^;,]+)[;,]/.exec(dataUrlOrUrl);
  return match?.[1] ?? fallback;
}

/** A function_call_output's `output`: a string, or input_text / input_image / input_file parts. */
function toolOutput(output: unknown): { text: string; mediaTypes: string[] } {
  if (typeof output === 'string') return { text: output, mediaTypes: [] };
  if (!Array.isArray(output)) return { text: '', mediaTypes: [] };
  const texts: string[] = [];
  const mediaTypes: string[] = [];
  for (const part of output) {
    if (!isObject(part)) continue;
    if (part.type === 'input_text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'input_image') {
      texts.push('[image]');
      mediaTypes.push(mediaTypeOf(part.image_url, 'image/*'));
    } else if (part.type === 'input_file') {
      texts.push('[file]');
      mediaTypes.push(mediaTypeOf(part.file_data, 'application/octet-stream'));
    }
  }
  return { text: texts.join(''), mediaTypes };
}

export async function startOpenAIResponsesFake(
  script: ModelScript,
  options: OpenAIResponsesFakeOptions = {},
): Promise<OpenAIResponsesFake> {
  const chunkSize = Math.max(1, options.chunkSize ?? 8);
  const hmacKey = randomBytes(32);
  const rejections: Rejection[] = [];
  const outputs = new Map<string, OutputRecord>();
  const responses = new Map<string, StoredResponse>();
  /** encrypted_content → what it was minted for. */
  const issued = new Map<string, IssuedEncryptedContent>();
  let accepted = 0;

  function mintEncryptedContent(itemId: string, reasoning: string): string {
    // Fernet tokens (what OpenAI returns) start with "gAAAAA"; the rest is a nonce and an HMAC over
    // the item id, the reasoning and the nonce, so only the exact value the fake issued verifies.
    const nonce = randomBytes(16);
    const mac = createHmac('sha256', hmacKey).update(itemId).update('\0').update(reasoning).update(nonce).digest();
    const token = 'gAAAAAB' + Buffer.concat([nonce, mac]).toString('base64url');
    issued.set(token, { itemId, encryptedContent: token, reasoning });
    return token;
  }

  function verifyEncryptedContent(token: string): IssuedEncryptedContent | undefined {
    const record = issued.get(token);
    if (record == null) return undefined;
    const raw = Buffer.from(token.slice('gAAAAAB'.length), 'base64url');
    const nonce = raw.subarray(0, 16);
    const mac = createHmac('sha256', hmacKey)
      .update(record.itemId)
      .update('\0')
      .update(record.reasoning)
      .update(nonce)
      .digest();
    return mac.equals(raw.subarray(16)) ? record : undefined;
  }

  function abbreviate(token: string): string {
    return token.length > 8 ? `${token.slice(0, 4)}...${token.slice(-4)}` : token;
  }

  function itemNotFound(id: string, store: boolean): OpenAIError {
    return new OpenAIError(
      404,
      store
        ? `Item with id '${id}' not found.`
        : `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, ` +
            `or remove this item from your input.`,
      'input',
    );
  }

  /** Resolves one input item (references, encrypted content) and checks its shape. */
  function resolveItem(raw: unknown, index: number, store: boolean): Entry {
    const where = `input[${index}]`;
    if (!isObject(raw)) {
      throw new OpenAIError(
        400,
        `Invalid type for '${where}': expected an object, but got ${typeof raw} instead.`,
        where,
        'invalid_type',
      );
    }
    let item = raw;
    let referencedId: string | undefined;
    if (item.type === 'item_reference') {
      if (typeof item.id !== 'string') throw missingParameter(`${where}.id`);
      const record = outputs.get(item.id);
      if (record == null || !record.stored) throw itemNotFound(item.id, store);
      item = record.item;
      referencedId = record.id;
    }
    const type = item.type ?? (item.role != null ? 'message' : undefined);
    switch (type) {
      case 'reasoning': {
        if (referencedId != null) return { index, kind: 'reasoning', id: referencedId, item };
        if (typeof item.encrypted_content === 'string') {
          const record = verifyEncryptedContent(item.encrypted_content);
          const id = typeof item.id === 'string' ? item.id : undefined;
          if (record == null || (id != null && id !== record.itemId)) {
            throw new OpenAIError(
              400,
              id != null
                ? `The encrypted content for item ${id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`
                : `The encrypted content ${abbreviate(item.encrypted_content)} could not be verified.`,
              null,
              'invalid_encrypted_content',
            );
          }
          return { index, kind: 'reasoning', id: record.itemId, item };
        }
        if (typeof item.id === 'string') {
          // Without its encrypted content a reasoning item stands for the stored item of that id.
          const record = outputs.get(item.id);
          if (record == null || !record.stored || record.type !== 'reasoning') throw itemNotFound(item.id, store);
          return { index, kind: 'reasoning', id: item.id, item };
        }
        throw missingParameter(`${where}.encrypted_content`);
      }
      case 'function_call': {
        for (const field of ['call_id', 'name', 'arguments']) {
          if (typeof item[field] !== 'string') throw missingParameter(`${where}.${field}`);
        }
        const id = referencedId ?? (typeof item.id === 'string' ? item.id : undefined);
        return { index, kind: 'function_call', id, callId: item.call_id as string, item };
      }
      case 'function_call_output': {
        if (typeof item.call_id !== 'string') throw missingParameter(`${where}.call_id`);
        if (typeof item.output !== 'string' && !Array.isArray(item.output)) throw missingParameter(`${where}.output`);
        return { index, kind: 'function_call_output', callId: item.call_id, item };
      }
      case 'message': {
        const roles = ['assistant', 'system', 'developer', 'user'];
        if (!roles.includes(item.role)) {
          throw new OpenAIError(
            400,
            `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
            `${where}.role`,
            'invalid_value',
          );
        }
        if (typeof item.content !== 'string' && !Array.isArray(item.content))
          throw missingParameter(`${where}.content`);
        const id = referencedId ?? (typeof item.id === 'string' ? item.id : undefined);
        return { index, kind: 'message', id, item };
      }
      default:
        return { index, kind: 'other', id: referencedId, item };
    }
  }

  /** The Responses API's pairing rules over the whole (expanded) input. */
  function checkRules(entries: Entry[]): void {
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const record = entry.id != null ? outputs.get(entry.id) : undefined;

      if (entry.kind === 'reasoning' && record?.next != null) {
        const next = entries[i + 1];
        const required = record.next;
        const follows =
          next != null &&
          (next.id === required.id ||
            // By value without an id: an assistant message, or the function call with the same call_id.
            (next.id == null &&
              next.kind === required.type &&
              (required.type === 'function_call' ? next.callId === required.callId : next.item.role === 'assistant')));
        if (!follows) {
          throw new OpenAIError(
            400,
            `Item '${record.id}' of type 'reasoning' was provided without its required following item.`,
            'input',
          );
        }
      }

      if (record?.precedingReasoningId != null && entry.kind !== 'reasoning') {
        const previous = entries[i - 1];
        if (previous?.kind !== 'reasoning' || previous.id !== record.precedingReasoningId) {
          throw new OpenAIError(
            400,
            `Item '${record.id}' of type '${record.type}' was provided without its required 'reasoning' item: '${record.precedingReasoningId}'.`,
            'input',
          );
        }
      }

      if (entry.kind === 'function_call') {
        const answered = entries
          .slice(i + 1)
          .some((e) => e.kind === 'function_call_output' && e.callId === entry.callId);
        if (!answered) {
          throw new OpenAIError(400, `No tool output found for function call ${entry.callId}.`, 'input');
        }
      }

      if (entry.kind === 'function_call_output') {
        const called = entries.slice(0, i).some((e) => e.kind === 'function_call' && e.callId === entry.callId);
        if (!called) {
          throw new OpenAIError(
            400,
            `No tool call found for function call output with call_id ${entry.callId}.`,
            'input',
          );
        }
      }
    }
  }

  function buildView(body: Json, entries: Entry[]): ScriptView {
    const tools = Array.isArray(body.tools)
      ? body.tools.filter((t: unknown) => isObject(t) && t.type === 'function').map((t: Json) => String(t.name))
      : [];
    const last = entries[entries.length - 1];
    const lastUserText = last?.kind === 'message' && last.item.role === 'user' ? contentText(last.item.content) : null;
    const toolResults: ScriptToolResult[] = [];
    for (let i = entries.length - 1; i >= 0 && entries[i]!.kind === 'function_call_output'; i--) {
      const entry = entries[i]!;
      const call = entries.find((e) => e.kind === 'function_call' && e.callId === entry.callId);
      const { text, mediaTypes } = toolOutput(entry.item.output);
      toolResults.unshift({
        callId: entry.callId!,
        name: call != null ? String(call.item.name) : undefined,
        output: text,
        isError: false,
        mediaTypes,
      });
    }
    return {
      model: body.model,
      requestIndex: accepted,
      tools,
      lastUserText,
      toolResults,
      reasoningRequested: body.reasoning != null,
      body,
    };
  }

  function checkBasics(body: unknown, headers: IncomingMessage['headers']): asserts body is Json {
    checkBearerKey(headers, options.apiKey);
    if (!isObject(body)) throw new OpenAIError(400, INVALID_JSON_MESSAGE);
    if (typeof body.model !== 'string' || body.model === '') throw missingParameter('model');
    checkModelAvailable(body.model, options.models);
    if (body.input == null) throw missingParameter('input');
    if (typeof body.input !== 'string' && !Array.isArray(body.input)) {
      throw new OpenAIError(
        400,
        "Invalid type for 'input': expected one of a string or array of input items.",
        'input',
        'invalid_type',
      );
    }
    const reasoningModel = isOpenAIReasoningModel(body.model);
    if (body.reasoning != null && !reasoningModel) {
      throw new OpenAIError(
        400,
        "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
        'reasoning.effort',
        'unsupported_parameter',
      );
    }
    if (reasoningModel && body.reasoning?.effort !== 'none') {
      for (const param of ['temperature', 'top_p']) {
        if (body[param] != null) {
          throw new OpenAIError(400, `Unsupported parameter: '${param}' is not supported with this model.`, param);
        }
      }
    }
    if (body.include != null && !Array.isArray(body.include)) {
      throw new OpenAIError(400, "Invalid type for 'include': expected an array.", 'include', 'invalid_type');
    }
  }

  /** Builds the response's output items from the script's reply, and remembers them. */
  function buildOutput(body: Json, reply: ScriptReply, store: boolean): Json[] {
    const items: Json[] = [];
    const reasoningModel = isOpenAIReasoningModel(body.model);
    const includeEncrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
    const summaryRequested = body.reasoning?.summary != null;
    if (reasoningModel && reply.reasoning != null) {
      const id = hexId('rs_');
      const item: Json = {
        id,
        type: 'reasoning',
        summary: summaryRequested && reply.reasoning !== '' ? [{ type: 'summary_text', text: reply.reasoning }] : [],
      };
      if (includeEncrypted) item.encrypted_content = mintEncryptedContent(id, reply.reasoning);
      items.push(item);
    }
    if (reply.text != null && reply.text !== '') {
      items.push({
        id: hexId('msg_'),
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: reply.text }],
        role: 'assistant',
      });
    }
    for (const call of reply.calls ?? []) {
      items.push({
        id: hexId('fc_'),
        type: 'function_call',
        status: 'completed',
        arguments: JSON.stringify(call.arguments),
        call_id: callId(),
        name: call.name,
      });
    }
    items.forEach((item, i) => {
      const previous = items[i - 1];
      const next = items[i + 1];
      outputs.set(item.id, {
        id: item.id,
        type: item.type,
        item,
        callId: item.call_id,
        next: next != null ? { id: next.id, type: next.type, callId: next.call_id } : undefined,
        precedingReasoningId: previous?.type === 'reasoning' ? previous.id : undefined,
        stored: store,
      });
    });
    return items;
  }

  function usageOf(body: Json, reply: ScriptReply, items: Json[]): Json {
    const inputTokens =
      reply.usage?.inputTokens ??
      Math.max(1, estimateTokens(JSON.stringify([body.instructions ?? '', body.input, body.tools ?? []])));
    const reasoningItem = items.find((item) => item.type === 'reasoning');
    const reasoningTokens =
      reply.usage?.reasoningTokens ?? (reasoningItem != null ? estimateTokens(reply.reasoning ?? '') : 0);
    const visible =
      estimateTokens(reply.text ?? '') +
      (reply.calls ?? []).reduce((n, c) => n + estimateTokens(JSON.stringify(c.arguments)) + 5, 0);
    const outputTokens = reply.usage?.outputTokens ?? visible + reasoningTokens;
    return {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: reply.usage?.cachedInputTokens ?? 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: inputTokens + outputTokens,
    };
  }

  function responseObject(body: Json, id: string, createdAt: number, store: boolean): Json {
    return {
      id,
      object: 'response',
      created_at: createdAt,
      status: 'in_progress',
      background: false,
      error: null,
      incomplete_details: null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      max_tool_calls: body.max_tool_calls ?? null,
      model: body.model,
      output: [],
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null,
      prompt_cache_key: body.prompt_cache_key ?? null,
      reasoning: isOpenAIReasoningModel(body.model)
        ? { effort: body.reasoning?.effort ?? 'medium', summary: body.reasoning?.summary ?? null }
        : { effort: null, summary: null },
      safety_identifier: body.safety_identifier ?? null,
      service_tier: body.service_tier ?? 'auto',
      store,
      temperature: body.temperature ?? 1,
      text: body.text ?? { format: { type: 'text' }, verbosity: 'medium' },
      tool_choice: body.tool_choice ?? 'auto',
      tools: body.tools ?? [],
      top_logprobs: body.top_logprobs ?? 0,
      top_p: body.top_p ?? 1,
      truncation: body.truncation ?? 'disabled',
      usage: null,
      user: body.user ?? null,
      metadata: body.metadata ?? {},
    };
  }

  /** The documented event sequence for the given output items. */
  function streamEvents(base: Json, items: Json[], completed: Json): Json[] {
    const events: Json[] = [];
    events.push({ type: 'response.created', response: base });
    events.push({ type: 'response.in_progress', response: base });
    items.forEach((item, outputIndex) => {
      if (item.type === 'reasoning') {
        const added: Json = { id: item.id, type: 'reasoning', summary: [] };
        if (item.encrypted_content != null) added.encrypted_content = item.encrypted_content;
        events.push({ type: 'response.output_item.added', output_index: outputIndex, item: added });
        (item.summary as Json[]).forEach((part, summaryIndex) => {
          const ids = { item_id: item.id, output_index: outputIndex, summary_index: summaryIndex };
          events.push({
            type: 'response.reasoning_summary_part.added',
            ...ids,
            part: { type: 'summary_text', text: '' },
          });
          for (const delta of chunkText(part.text, chunkSize)) {
            events.push({ type: 'response.reasoning_summary_text.delta', ...ids, delta });
          }
          events.push({ type: 'response.reasoning_summary_text.done', ...ids, text: part.text });
          events.push({
            type: 'response.reasoning_summary_part.done',
            ...ids,
            part: { type: 'summary_text', text: part.text },
          });
        });
      } else if (item.type === 'message') {
        const text = item.content[0].text as string;
        const ids = { item_id: item.id, output_index: outputIndex, content_index: 0 };
        events.push({
          type: 'response.output_item.added',
          output_index: outputIndex,
          item: { id: item.id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
        });
        events.push({
          type: 'response.content_part.added',
          ...ids,
          part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
        });
        for (const delta of chunkText(text, chunkSize)) {
          events.push({ type: 'response.output_text.delta', ...ids, delta, logprobs: [] });
        }
        events.push({ type: 'response.output_text.done', ...ids, text, logprobs: [] });
        events.push({
          type: 'response.content_part.done',
          ...ids,
          part: { type: 'output_text', annotations: [], logprobs: [], text },
        });
      } else {
        const ids = { item_id: item.id, output_index: outputIndex };
        events.push({
          type: 'response.output_item.added',
          output_index: outputIndex,
          item: { ...item, status: 'in_progress', arguments: '' },
        });
        for (const delta of chunkText(item.arguments, chunkSize)) {
          events.push({ type: 'response.function_call_arguments.delta', ...ids, delta });
        }
        events.push({ type: 'response.function_call_arguments.done', ...ids, arguments: item.arguments });
      }
      events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
    });
    events.push({ type: 'response.completed', response: completed });
    return events.map((event, sequence) => ({ ...event, sequence_number: sequence }));
  }

  function handleResponses(body: Json, res: ServerResponse): void {
    const store = body.store !== false;
    let conversation: Json[] = [];
    if (body.previous_response_id != null) {
      const previous = responses.get(body.previous_response_id);
      if (previous == null) {
        throw new OpenAIError(
          400,
          `Previous response with id '${String(body.previous_response_id)}' not found.`,
          'previous_response_id',
          'previous_response_not_found',
        );
      }
      conversation = [...previous.conversation];
    }
    const input: unknown[] =
      typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input;
    const entries = [...conversation, ...input].map((item, index) => resolveItem(item, index, store));
    checkRules(entries);

    const reply = script(buildView(body, entries));
    accepted++;
    const items = buildOutput(body, reply, store);
    const id = hexId('resp_');
    const createdAt = Math.floor(Date.now() / 1000);
    if (store) responses.set(id, { conversation: [...conversation, ...input.map((item) => item as Json), ...items] });

    const base = responseObject(body, id, createdAt, store);
    const completed = {
      ...base,
      status: 'completed',
      completed_at: Math.floor(Date.now() / 1000),
      output: items,
      usage: usageOf(body, reply, items),
    };
    const headers = { 'x-request-id': 'req_' + randomBytes(16).toString('hex') };
    if (body.stream === true) {
      writeSse(
        res,
        { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
        streamEvents(base, items, completed).map((event) => ({ event: event.type, data: JSON.stringify(event) })),
      );
    } else {
      writeJson(res, 200, completed, { ...headers, 'content-type': 'application/json' });
    }
  }

  const server = await startFakeHttpServer(
    serveOpenAIRoute('/v1/responses', rejections, (body, req, res) => {
      checkBasics(body, req.headers);
      handleResponses(body, res);
    }),
  );

  return {
    baseURL: `${server.origin}/v1`,
    requests: server.requests,
    rejections,
    issuedEncryptedContent: () => [...issued.values()],
    storedItemIds: () => [...outputs.values()].filter((record) => record.stored).map((record) => record.id),
    close: server.close,
  };
}
