import type { ContentPart, JsonObject, LedgerEntryRecord } from '../../domain/records.ts';
import { NO_SERVER_CALLS, type RenderItem, type ServerCallIndex } from '../../engine/index.ts';
import { reasoningItemId } from './item-references.ts';

/**
 * Renders one stored item as a Responses item. Calls Baton executed itself get their own item
 * types, `baton:tool_call` and `baton:tool_result` (Open Responses §1.3: non-standard item types
 * are slug-prefixed). An OpenAI client answers every `function_call` it finds in `output`, so a
 * server call shown as one would be run a second time, by the client.
 */

/** `call_abc` → `abc`: wire item ids are derived from call ids, so a stream and a later GET agree. */
function idSuffix(id: string): string {
  const cut = id.indexOf('_');
  return cut === -1 ? id : id.slice(cut + 1);
}

export const functionCallItemId = (callId: string): string => `fc_${idSuffix(callId)}`;
export const functionCallOutputItemId = (callId: string): string => `fco_${idSuffix(callId)}`;
export const toolCallItemId = (callId: string): string => `btc_${idSuffix(callId)}`;
export const toolResultItemId = (callId: string): string => `btr_${idSuffix(callId)}`;

export function inputPartView(part: ContentPart): JsonObject {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  if (part.type === 'image')
    return { type: 'input_image', image_url: `data:${part.mediaType};base64,${part.data}`, detail: 'auto' };
  if (part.mediaType.startsWith('image/') && part.url !== null)
    return { type: 'input_image', image_url: part.url, detail: 'auto' };
  return {
    type: 'input_file',
    ...(part.filename !== null ? { filename: part.filename } : {}),
    ...(part.url !== null ? { file_url: part.url } : { file_data: `data:${part.mediaType};base64,${part.data ?? ''}` }),
  };
}

export function outputTextPart(text: string): JsonObject {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** A tool's output: a string when it is all text (what most clients expect), else input parts. */
function toolOutputView(output: ContentPart[]): string | JsonObject[] {
  const onlyText = output.every((part) => part.type === 'text');
  return onlyText ? output.map((part) => (part.type === 'text' ? part.text : '')).join('') : output.map(inputPartView);
}

/**
 * A server call's approval, when its tool requires one: `pending` until a person decides it at
 * `decide_url` (the ledger's decision route, `{"approve": true|false}`), then `approved` (the
 * tool ran, successfully or not), `denied`, `expired` or `cancelled`, with `decide_url` null.
 */
export function approvalView(entry: LedgerEntryRecord): JsonObject {
  const status = entry.state === 'completed' || entry.state === 'failed' ? 'approved' : entry.state;
  return { status, decide_url: entry.state === 'pending' ? `/v1/tool-calls/${entry.id}/decision` : null };
}

export interface ItemViewOptions {
  /** The request asked for `include: ["reasoning.encrypted_content"]`. */
  encryptedReasoning?: boolean;
}

/**
 * The encrypted reasoning an OpenAI model returned (agents with `store: false`), or null: other
 * providers' reasoning is signed, not encrypted, and a signature never leaves Baton.
 */
function encryptedContentOf(payload: Extract<RenderItem['payload'], { type: 'reasoning' }>): string | null {
  const openai = payload.provider.metadata.openai;
  const value =
    openai !== null && typeof openai === 'object' && !Array.isArray(openai) ? openai.reasoningEncryptedContent : null;
  return typeof value === 'string' ? value : null;
}

/** One stored item as a Responses item; `calls` says which calls Baton executed and their ledger rows. */
export function itemView(
  item: RenderItem,
  status: 'completed' | 'incomplete' = 'completed',
  calls: ServerCallIndex = NO_SERVER_CALLS,
  options: ItemViewOptions = {},
): JsonObject {
  const payload = item.payload;
  switch (payload.type) {
    case 'reasoning':
      // Only what the provider showed (a summary or the thinking); signatures stay in Baton.
      return {
        type: 'reasoning',
        id: reasoningItemId(item.groupId, item.id ?? item.groupId),
        summary: payload.text === '' ? [] : [{ type: 'summary_text', text: payload.text }],
        ...(options.encryptedReasoning ? { encrypted_content: encryptedContentOf(payload) } : {}),
        status,
      };
    case 'message':
      return {
        type: 'message',
        id: item.groupId,
        status,
        role: payload.role,
        content:
          payload.role === 'assistant'
            ? [outputTextPart(payload.content.map((part) => (part.type === 'text' ? part.text : '')).join(''))]
            : payload.content.map(inputPartView),
        ...(payload.phase ? { phase: payload.phase } : {}),
      };
    case 'function_call': {
      const executor = payload.executor;
      if (executor !== 'server' && executor !== 'fake') {
        return {
          type: 'function_call',
          id: functionCallItemId(payload.callId),
          call_id: payload.callId,
          name: payload.name,
          arguments: payload.arguments,
          status: 'completed',
        };
      }
      const entry = calls.ledger.get(payload.callId);
      return {
        type: 'baton:tool_call',
        id: toolCallItemId(payload.callId),
        call_id: payload.callId,
        name: payload.name,
        arguments: payload.arguments,
        executor,
        // The item is complete once its arguments are; whether the tool ran is its result's business.
        status: 'completed',
        ...(entry?.kind === 'approval' ? { approval: approvalView(entry) } : {}),
      };
    }
    case 'function_call_output':
      if (calls.executors.has(payload.callId)) {
        return {
          type: 'baton:tool_result',
          id: toolResultItemId(payload.callId),
          call_id: payload.callId,
          output: toolOutputView(payload.output),
          is_error: payload.isError,
          status: 'completed',
        };
      }
      return {
        type: 'function_call_output',
        id: functionCallOutputItemId(payload.callId),
        call_id: payload.callId,
        output: toolOutputView(payload.output),
        status: 'completed',
      };
  }
}
