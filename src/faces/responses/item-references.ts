import type { ItemReference } from '../../engine/index.ts';

/**
 * An `item_reference` input in the engine's terms. Message ids are item group ids; call and
 * output ids are derived from the call id (`fc_X`/`fco_X`, and `btc_X`/`btr_X` for calls Baton
 * executed, ↔ `call_X`), so the engine finds them through the ledger.
 */
export function itemReference(id: string): ItemReference {
  const call = /^(fco?|btc|btr)_(.+)$/.exec(id);
  if (!call) return { type: 'item_reference', id, target: { kind: 'message', groupId: id } };
  const kind = call[1] === 'fc' || call[1] === 'btc' ? 'function_call' : 'function_call_output';
  return { type: 'item_reference', id, target: { kind, callId: `call_${call[2] ?? ''}` } };
}
