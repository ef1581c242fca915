import type { ContentPart, ItemRecord, JsonObject, ResponseRecord, TurnRecord, TurnUsage } from '../../store/records.ts';
import type { Store } from '../../store/store.ts';
import { blocksTurn } from '../../engine/pending-calls.ts';

/**
 * Renders Baton records as Open Responses objects. Every key of the spec's ResponseResource is
 * always present (nullable ones as null): the compliance suite and strict clients parse them all.
 */

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

/** `call_abc` → `abc`: wire item ids are derived from call ids, so a stream and a later GET agree. */
function idSuffix(id: string): string {
  const cut = id.indexOf('_');
  return cut === -1 ? id : id.slice(cut + 1);
}

export const functionCallItemId = (callId: string): string => `fc_${idSuffix(callId)}`;
export const functionCallOutputItemId = (callId: string): string => `fco_${idSuffix(callId)}`;

function seconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

export function inputPartView(part: ContentPart): JsonObject {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  if (part.type === 'image') return { type: 'input_image', image_url: `data:${part.mediaType};base64,${part.data}`, detail: 'auto' };
  if (part.mediaType.startsWith('image/') && part.url !== null) return { type: 'input_image', image_url: part.url, detail: 'auto' };
  return {
    type: 'input_file',
    ...(part.filename !== null ? { filename: part.filename } : {}),
    ...(part.url !== null ? { file_url: part.url } : { file_data: `data:${part.mediaType};base64,${part.data ?? ''}` }),
  };
}

export function outputTextPart(text: string): JsonObject {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** True for items the client never sees: invalid calls and Baton's answers to them. */
export function isHiddenItem(item: Pick<ItemRecord, 'payload' | 'groupId'>): boolean {
  const payload = item.payload;
  if (payload.type === 'function_call') return payload.executor === 'invalid';
  return payload.type === 'function_call_output' && item.groupId.endsWith('_invalid');
}

/** One stored item as a Responses item. */
export function itemView(item: Pick<ItemRecord, 'payload' | 'groupId'>, status: 'completed' | 'incomplete' = 'completed'): JsonObject {
  const payload = item.payload;
  switch (payload.type) {
    case 'message':
      return {
        type: 'message',
        id: item.groupId,
        status,
        role: payload.role,
        content: payload.role === 'assistant' ? [outputTextPart(payload.content.map((part) => (part.type === 'text' ? part.text : '')).join(''))] : payload.content.map(inputPartView),
        ...(payload.phase ? { phase: payload.phase } : {}),
      };
    case 'function_call':
      return { type: 'function_call', id: functionCallItemId(payload.callId), call_id: payload.callId, name: payload.name, arguments: payload.arguments, status: 'completed' };
    case 'function_call_output': {
      const onlyText = payload.output.every((part) => part.type === 'text');
      return {
        type: 'function_call_output',
        id: functionCallOutputItemId(payload.callId),
        call_id: payload.callId,
        output: onlyText ? payload.output.map((part) => (part.type === 'text' ? part.text : '')).join('') : payload.output.map(inputPartView),
        status: 'completed',
      };
    }
  }
}

export function usageView(usage: TurnUsage): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
}

/** The skeleton every view shares: the echoed request and the fields that start empty. */
export function baseResponseView(record: Pick<ResponseRecord, 'id' | 'createdAt' | 'echo' | 'previousResponseId'>): JsonObject {
  return {
    id: record.id,
    object: 'response',
    created_at: seconds(record.createdAt),
    completed_at: null,
    status: 'in_progress',
    incomplete_details: null,
    previous_response_id: record.previousResponseId,
    output: [],
    error: null,
    usage: null,
    ...record.echo,
  };
}

/** What the engine's run looks like behind a response; an extra key the spec and the SDK ignore. */
export interface RunView {
  id: string;
  conversation_id: string;
  status: TurnRecord['status'];
  pending_tool_call_ids: string[];
}

export interface ResponseState {
  record: ResponseRecord;
  turn: TurnRecord;
  /** The response's output items, hidden ones already removed. */
  output: ItemRecord[];
  /** The response that continued this one's turn (after a pause), if any. */
  continuation: ResponseRecord | null;
  pendingCallIds: string[];
}

const OUTPUT_PAGE = 200;

/** Reads what a response consists of now: its output range and the state of its turn. */
export async function loadResponseState(store: Store, record: ResponseRecord): Promise<ResponseState> {
  const [turn, next] = await Promise.all([store.turns.get(record.turnId), store.responses.nextInConversation(record.conversationId, record.inputLastSeq)]);
  if (!turn) throw new Error(`turn ${record.turnId} of response ${record.id} is missing`);
  const output: ItemRecord[] = [];
  for (let after = record.inputLastSeq; ; ) {
    const page = await store.items.listAfterSeq(record.conversationId, after, OUTPUT_PAGE);
    const inRange = next ? page.filter((item) => item.seq < next.inputFirstSeq) : page;
    output.push(...inRange.filter((item) => !isHiddenItem(item)));
    if (inRange.length < page.length || page.length < OUTPUT_PAGE) break;
    after = page[page.length - 1]?.seq ?? after;
  }
  const continuation = next && next.turnId === record.turnId ? next : null;
  const pendingCallIds =
    !continuation && turn.status === 'requires_action' ? (await store.ledger.listByTurn(turn.id)).filter(blocksTurn).map((entry) => entry.id) : [];
  return { record, turn, output, continuation, pendingCallIds };
}

function statusOf(state: ResponseState): ResponseStatus {
  if (state.continuation) return 'completed';
  switch (state.turn.status) {
    case 'in_progress':
      return 'in_progress';
    case 'requires_action':
      return 'completed';
    case 'completed':
      return state.turn.finishReason === 'length' ? 'incomplete' : 'completed';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
    case 'expired':
      return 'failed';
  }
}

/** The full ResponseResource of a response as it stands. */
export function responseView(state: ResponseState): JsonObject {
  const { record, turn, continuation } = state;
  const status = statusOf(state);
  const usageNow = continuation ? continuation.usageBefore : turn.usage;
  const finishedAt = continuation ? continuation.createdAt : status === 'in_progress' ? null : (turn.completedAt ?? turn.updatedAt);
  const lastIndex = state.output.length - 1;
  const run: RunView = { id: turn.id, conversation_id: turn.conversationId, status: continuation ? 'requires_action' : turn.status, pending_tool_call_ids: state.pendingCallIds };
  return {
    ...baseResponseView(record),
    status,
    completed_at: finishedAt === null ? null : seconds(finishedAt),
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    output: state.output.map((item, index) => itemView(item, status === 'incomplete' && index === lastIndex ? 'incomplete' : 'completed')),
    error: status === 'failed' ? { code: turn.error?.code ?? 'server_error', message: turn.error?.message ?? 'The response failed.' } : null,
    usage: status === 'in_progress' ? null : usageView({ inputTokens: usageNow.inputTokens - record.usageBefore.inputTokens, outputTokens: usageNow.outputTokens - record.usageBefore.outputTokens }),
    baton_run: run as unknown as JsonObject,
  };
}
