import { BatonError } from '../../domain/errors/baton-error.ts';
import type { InputItem } from '../../engine/index.ts';
import type { ItemRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { isHiddenItem } from './item-views.ts';

/** An `item_reference` input, resolved once the store can be asked. */
export interface ItemReference {
  type: 'item_reference';
  id: string;
}

function notFound(id: string, param: string): BatonError {
  return new BatonError(
    'item_not_found',
    `${param} references item '${id}', which does not exist in this app (item ids are the ids of output and input items: msg_…, fc_…, fco_…, btc_…, btr_…).`,
    {
      param,
    },
  );
}

function toInputItem(item: ItemRecord): InputItem {
  const payload = item.payload;
  if (payload.type === 'function_call')
    return { type: 'function_call', callId: payload.callId, name: payload.name, arguments: payload.arguments };
  if (payload.type === 'function_call_output')
    return { type: 'function_call_output', callId: payload.callId, output: payload.output, isError: payload.isError };
  return payload;
}

/**
 * Finds the stored item a reference names, in this app only. Message ids are item group ids;
 * call and output ids are derived from the call id (`fc_X`/`fco_X`, and `btc_X`/`btr_X` for calls
 * Baton executed, ↔ `call_X`), found through the ledger, so only calls Baton made itself can be
 * referenced that way.
 */
export async function resolveItemReference(store: Store, appId: string, id: string, param: string): Promise<InputItem> {
  const call = /^(fco?|btc|btr)_(.+)$/.exec(id);
  let candidates: ItemRecord[] = [];
  if (call) {
    const callId = `call_${call[2] ?? ''}`;
    const entry = await store.ledger.get(appId, callId);
    if (entry) {
      const wanted = call[1] === 'fc' || call[1] === 'btc' ? 'function_call' : 'function_call_output';
      candidates = (await store.items.listByTurn(entry.turnId)).filter(
        (item) => item.payload.type === wanted && 'callId' in item.payload && item.payload.callId === callId,
      );
    }
  } else {
    candidates = (await store.items.listByGroup(id)).filter((item) => item.payload.type === 'message');
  }
  const item = candidates.find((candidate) => !isHiddenItem(candidate));
  if (!item || !(await store.conversations.get(appId, item.conversationId))) throw notFound(id, param);
  return toInputItem(item);
}
