import { createHmac, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startFakeHttpServer } from './fake-http-server.ts';
import { OpenAIError, serveOpenAIRoute } from './openai-platform.ts';
import { buildOutput, hexId, responseObject, usageOf, writeResponse } from './openai-responses-reply-writer.ts';
import { checkBasics, checkRules, isObject, resolveItem } from './openai-responses-request-rules.ts';
import type { Entry, Json, OutputRecord } from './openai-responses-request-rules.ts';
import type { ModelScript, ProviderFake, Rejection, ScriptToolResult, ScriptView } from './provider-fake.ts';

// The rules and the reply writer have files of their own; what tests import from here stays here.
export { isOpenAIReasoningModel } from './openai-responses-request-rules.ts';

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
 * Violations are answered with OpenAI's status, envelope and wording (see the messages in
 * `openai-responses-request-rules.ts`; they were taken from error bodies OpenAI returned, as quoted
 * in public bug reports).
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

interface StoredResponse {
  /** The full input the response answered (the previous_response_id chain expanded), then its output. */
  conversation: Json[];
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
    const entries = [...conversation, ...input].map((item, index) =>
      resolveItem(item, index, store, { outputs, verifyEncryptedContent }),
    );
    checkRules(entries, outputs);

    const reply = script(buildView(body, entries, accepted));
    accepted++;
    const items = buildOutput(body, reply, store, outputs, mintEncryptedContent);
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
    writeResponse(res, body, base, items, completed, chunkSize);
  }

  const server = await startFakeHttpServer(
    serveOpenAIRoute('/v1/responses', rejections, (body, req, res) => {
      checkBasics(body, req.headers, options);
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

/** What the script sees of a request that passed the rules; `requestIndex` counts the requests accepted before it. */
function buildView(body: Json, entries: Entry[], requestIndex: number): ScriptView {
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
    requestIndex,
    tools,
    lastUserText,
    toolResults,
    reasoningRequested: body.reasoning != null,
    body,
  };
}
