import type { IncomingMessage } from 'node:http';
import {
  INVALID_JSON_MESSAGE,
  OpenAIError,
  checkBearerKey,
  checkModelAvailable,
  missingParameter,
} from './openai-platform.ts';
import type { OpenAIResponsesFakeOptions } from './openai-responses-fake.ts';

/**
 * The Responses API's request rules, as the Responses fake (`openai-responses-fake.ts`, whose doc
 * comment lists them) enforces them: the request's basics, each input item resolved (references,
 * encrypted reasoning) against what the fake output before, and the pairing rules over the whole
 * input. Each violation is thrown as an `OpenAIError` with OpenAI's status and wording.
 */

export type Json = Record<string, any>;

/** What the fake remembers about one item it output. */
export interface OutputRecord {
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

/** What resolving input items needs from the fake: the items it output, and a check of the encrypted content it minted. */
export interface ItemMemory {
  outputs: Map<string, OutputRecord>;
  /** What a genuine `encrypted_content` was minted for; undefined for any other. */
  verifyEncryptedContent(token: string): { itemId: string } | undefined;
}

/** An input item resolved for the rule checks. */
export interface Entry {
  index: number;
  kind: 'reasoning' | 'message' | 'function_call' | 'function_call_output' | 'other';
  /** The output item id this entry stands for (by reference, by value with `id`, or through encrypted content). */
  id?: string;
  callId?: string;
  item: Json;
}

export function isObject(value: unknown): value is Json {
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
export function resolveItem(raw: unknown, index: number, store: boolean, memory: ItemMemory): Entry {
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
    const record = memory.outputs.get(item.id);
    if (record == null || !record.stored) throw itemNotFound(item.id, store);
    item = record.item;
    referencedId = record.id;
  }
  const type = item.type ?? (item.role != null ? 'message' : undefined);
  switch (type) {
    case 'reasoning': {
      if (referencedId != null) return { index, kind: 'reasoning', id: referencedId, item };
      if (typeof item.encrypted_content === 'string') {
        const record = memory.verifyEncryptedContent(item.encrypted_content);
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
        const record = memory.outputs.get(item.id);
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
      if (typeof item.content !== 'string' && !Array.isArray(item.content)) throw missingParameter(`${where}.content`);
      const id = referencedId ?? (typeof item.id === 'string' ? item.id : undefined);
      return { index, kind: 'message', id, item };
    }
    default:
      return { index, kind: 'other', id: referencedId, item };
  }
}

/** The Responses API's pairing rules over the whole (expanded) input. */
export function checkRules(entries: Entry[], outputs: Map<string, OutputRecord>): void {
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
      const answered = entries.slice(i + 1).some((e) => e.kind === 'function_call_output' && e.callId === entry.callId);
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

/** The bearer key, the model and the request's top-level parameters. */
export function checkBasics(
  body: unknown,
  headers: IncomingMessage['headers'],
  options: OpenAIResponsesFakeOptions,
): asserts body is Json {
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
