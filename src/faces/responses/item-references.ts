import type { ItemReference } from '../../engine/index.ts';

/**
 * A reasoning item's wire id names its step and itself (`rs_<step>_<item>`), so a client that
 * replays it, by reference or by value, gets the stored reasoning back with its signatures.
 */
export function reasoningItemId(groupId: string, itemId: string): string {
  return `rs_${suffix(groupId)}_${suffix(itemId)}`;
}

function reasoningIdParts(id: string): { groupId: string; itemId: string } | undefined {
  const match = /^rs_([A-Za-z0-9]+)_([A-Za-z0-9]+)$/.exec(id);
  return match ? { groupId: `msg_${match[1] ?? ''}`, itemId: `item_${match[2] ?? ''}` } : undefined;
}

/** True for the ids Baton gives reasoning items; other systems' reasoning cannot be replayed here. */
export function isBatonReasoningId(id: string): boolean {
  return reasoningIdParts(id) !== undefined;
}

function suffix(id: string): string {
  const cut = id.indexOf('_');
  return cut === -1 ? id : id.slice(cut + 1);
}

/**
 * An `item_reference` input in the engine's terms. Message ids are item group ids; call and
 * output ids are derived from the call id (`fc_X`/`fco_X`, and `btc_X`/`btr_X` for calls Baton
 * executed, ↔ `call_X`), so the engine finds them through the ledger.
 */
export function itemReference(id: string): ItemReference {
  const reasoning = reasoningIdParts(id);
  if (reasoning) return { type: 'item_reference', id, target: { kind: 'reasoning', ...reasoning } };
  const call = /^(fco?|btc|btr)_(.+)$/.exec(id);
  if (!call) return { type: 'item_reference', id, target: { kind: 'message', groupId: id } };
  const kind = call[1] === 'fc' || call[1] === 'btc' ? 'function_call' : 'function_call_output';
  return { type: 'item_reference', id, target: { kind, callId: `call_${call[2] ?? ''}` } };
}
