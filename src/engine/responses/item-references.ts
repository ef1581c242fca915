import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ItemRecord } from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import type { InputItem } from '../input-items.ts';
import { isHiddenItem } from './server-call-index.ts';

/**
 * An input item that names a stored one instead of repeating it: a message by its group id, a
 * call or its output by the call id. `id` is the reference as the client wrote it, for errors.
 */
export interface ItemReference {
  type: 'item_reference';
  id: string;
  target:
    | { kind: 'message'; groupId: string }
    | { kind: 'reasoning'; groupId: string; itemId: string }
    | { kind: 'function_call' | 'function_call_output'; callId: string };
  /**
   * An item the client sent whole, under an id Baton gave it: the stored item is used when it is
   * found and is the same call (it carries what the model's provider needs back), else this one.
   */
  fallback?: InputItem;
}

/** A request's input: items, or references to stored ones, with where each sits in the request. */
export interface ResponseInput {
  items: (InputItem | ItemReference)[];
  params: string[];
}

/** Input whose references were looked up. */
export interface ResolvedInput {
  items: InputItem[];
  params: string[];
}

/** A stored item as input again: a replayed call or output keeps its ids, not how it ran. */
export function asInputItem(item: ItemRecord): InputItem {
  const payload = item.payload;
  if (payload.type === 'function_call')
    return {
      type: 'function_call',
      callId: payload.callId,
      name: payload.name,
      arguments: payload.arguments,
      ...(payload.provider ? { provider: payload.provider } : {}),
    };
  if (payload.type === 'function_call_output')
    return {
      type: 'function_call_output',
      callId: payload.callId,
      output: payload.output,
      isError: payload.isError,
    };
  return payload;
}

/** Looks up every reference (in this app only) and puts the item it names in its place. */
export async function resolveReferences(
  store: Pick<Repositories, 'ledger' | 'items' | 'conversations'>,
  appId: string,
  input: ResponseInput,
): Promise<ResolvedInput> {
  const items: InputItem[] = [];
  for (const [index, item] of input.items.entries()) {
    items.push(
      item.type === 'item_reference'
        ? await resolveReference(store, appId, item, input.params[index] ?? 'input')
        : item,
    );
  }
  return { items, params: input.params };
}

/**
 * Finds the stored item a reference names. Calls and outputs are found through the ledger, so
 * only calls Baton made itself can be referenced that way; another app's item is not found.
 */
async function resolveReference(
  store: Pick<Repositories, 'ledger' | 'items' | 'conversations'>,
  appId: string,
  reference: ItemReference,
  param: string,
): Promise<InputItem> {
  const { target } = reference;
  let candidates: ItemRecord[] = [];
  if (target.kind === 'message') {
    candidates = (await store.items.listByGroup(target.groupId)).filter((item) => item.payload.type === 'message');
  } else if (target.kind === 'reasoning') {
    candidates = (await store.items.listByGroup(target.groupId)).filter(
      (item) => item.payload.type === 'reasoning' && item.id === target.itemId,
    );
  } else {
    const entry = await store.ledger.get(appId, target.callId);
    if (entry) {
      candidates = (await store.items.listByTurn(entry.turnId)).filter(
        (item) =>
          item.payload.type === target.kind && 'callId' in item.payload && item.payload.callId === target.callId,
      );
    }
  }
  const item = candidates.find((candidate) => !isHiddenItem(candidate));
  const found = item && (await store.conversations.get(appId, item.conversationId)) ? asInputItem(item) : undefined;
  if (reference.fallback) return found && sameCall(found, reference.fallback) ? found : reference.fallback;
  if (!item || !found) {
    throw new BatonError(
      'item_not_found',
      `${param} references item '${reference.id}', which does not exist in this app.`,
      {
        param,
        data: { item_id: reference.id },
      },
    );
  }
  return found;
}

function sameCall(stored: InputItem, sent: InputItem): boolean {
  return stored.type === 'function_call' && sent.type === 'function_call' && stored.callId === sent.callId;
}
