import type { ContentPart, ItemPayload, NewItem, ProviderState, TurnRecord } from '../domain/records.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import type { EngineContext } from './engine-context.ts';

/**
 * What a face may add to a conversation as input: messages, and — when a client replays a
 * transcript it kept itself — function calls with their outputs. Replayed calls are history,
 * not work: they never enter the ledger.
 */
export type InputItem =
  | Extract<ItemPayload, { type: 'message' }>
  /** A stored reasoning item a client replayed by its id: the signatures it carries go back with it. */
  | Extract<ItemPayload, { type: 'reasoning' }>
  | { type: 'function_call'; callId: string; name: string; arguments: string; provider?: ProviderState }
  | { type: 'function_call_output'; callId: string; output: ContentPart[]; isError: boolean; name?: string };

/** Where each input item sits in the request, for error messages (`input[2]`). */
export type ParamOf = (index: number) => string;

const defaultParamOf: ParamOf = (index) => `input[${index}]`;

/**
 * Replayed history must be valid on its own: every output answers a call given before it, every
 * call is answered, and no call id repeats. A provider would reject anything else later, when the
 * cause is much harder to see.
 */
export function checkInputItems(
  items: readonly InputItem[],
  paramOf: ParamOf = defaultParamOf,
  earlierCalls: ReadonlySet<string> = new Set(),
): void {
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  items.forEach((item, index) => {
    if (item.type === 'function_call') {
      if (calls.has(item.callId)) {
        throw new BatonError(
          'duplicate_call_id',
          `Duplicate function call with call_id '${item.callId}' at ${paramOf(index)}: call ids must be unique.`,
          {
            param: paramOf(index),
          },
        );
      }
      calls.set(item.callId, index);
    } else if (item.type === 'function_call_output') {
      if (!calls.has(item.callId) && !earlierCalls.has(item.callId)) {
        throw new BatonError(
          'tool_output_without_call',
          `No tool call found for function call output with call_id ${item.callId}.`,
          {
            param: paramOf(index),
          },
        );
      }
      if (answered.has(item.callId)) {
        throw new BatonError(
          'duplicate_tool_output',
          `Duplicate output for call_id ${item.callId} at ${paramOf(index)}: send exactly one output per call.`,
          {
            param: paramOf(index),
          },
        );
      }
      answered.add(item.callId);
    }
  });
  for (const [callId, index] of calls) {
    if (!answered.has(callId)) {
      throw new BatonError('tool_call_without_output', `No tool output found for function call ${callId}.`, {
        param: paramOf(index),
      });
    }
  }
}

/** True when the input is only user messages, the kind an agent's `queue` policy may hold back. */
export function isPlainUserInput(items: readonly InputItem[]): boolean {
  return items.every((item) => item.type === 'message' && item.role === 'user');
}

/** The stored items for checked input: each message its own group, a replayed call set grouped. */
export function toNewItems(
  context: EngineContext,
  turn: TurnRecord,
  items: readonly InputItem[],
  createdAt: string,
): NewItem[] {
  const names = new Map<string, string>();
  let group = context.newId('msg');
  let previous: InputItem['type'] | null = null;
  return items.map((item) => {
    // Consecutive calls (a parallel set) and consecutive outputs share a group, as the model made
    // them; so does replayed reasoning with the calls or reply that followed it.
    const joins =
      (previous === item.type && item.type !== 'message') ||
      (previous === 'reasoning' &&
        (item.type === 'function_call' || (item.type === 'message' && item.role === 'assistant')));
    if (!joins) group = context.newId('msg');
    previous = item.type;
    const base = {
      id: context.newId('item'),
      conversationId: turn.conversationId,
      turnId: turn.id,
      groupId: group,
      createdAt,
    };
    if (item.type === 'message' || item.type === 'reasoning') return { ...base, payload: item };
    if (item.type === 'function_call') {
      names.set(item.callId, item.name);
      return {
        ...base,
        payload: {
          type: 'function_call',
          callId: item.callId,
          name: item.name,
          arguments: item.arguments,
          executor: 'client',
          ...(item.provider ? { provider: item.provider } : {}),
        },
      };
    }
    return {
      ...base,
      payload: {
        type: 'function_call_output',
        callId: item.callId,
        name: names.get(item.callId) ?? item.name ?? '',
        output: item.output,
        isError: item.isError,
        synthetic: false,
      },
    };
  });
}
