import type { NewItem, ProviderState } from '../domain/records.ts';
import type { ModelStepPart } from './model-step.ts';

/**
 * The items of one model step in the order the model produced them: its reasoning, its text
 * and its calls (the `function_call` items the call plan made, given back their provider
 * metadata). Providers check that order when the step comes back in the next prompt: a thinking
 * block before its `tool_use`, a reasoning item before the item that followed it. Everything
 * the provider attached is bound to `model`, so another model never receives it.
 *
 * A step's text is one message, where its first text part was: every face shows a step as one
 * reply, and providers split text into several parts only around calls (the later part's
 * metadata, where a signature comes, is the one kept).
 */
export function stepItems(
  parts: readonly ModelStepPart[],
  callItems: readonly NewItem[],
  callIdOf: (providerCallId: string) => string,
  model: string,
  newItem: (payload: NewItem['payload'], id?: string) => NewItem,
  reasoningItemId: (index: number) => string,
): NewItem[] {
  const callItemsById = new Map<string, NewItem>();
  for (const item of callItems) if (item.payload.type === 'function_call') callItemsById.set(item.payload.callId, item);
  const items: NewItem[] = [];
  const bound = (metadata: ProviderState['metadata'] | undefined): { provider?: ProviderState } =>
    metadata === undefined ? {} : { provider: { model, metadata } };
  let message: NewItem | undefined;
  for (const part of parts) {
    if (part.type === 'text' && message?.payload.type === 'message') {
      const [first] = message.payload.content;
      const text = (first?.type === 'text' ? first.text : '') + part.text;
      const provider = part.metadata === undefined ? message.payload.provider : { model, metadata: part.metadata };
      Object.assign(message, {
        payload: { ...message.payload, content: [{ type: 'text', text }], ...(provider ? { provider } : {}) },
      });
    } else if (part.type === 'reasoning') {
      items.push(
        newItem(
          { type: 'reasoning', text: part.text, provider: { model, metadata: part.metadata ?? {} } },
          reasoningItemId(part.index),
        ),
      );
    } else if (part.type === 'text') {
      message = newItem({
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: part.text }],
        ...bound(part.metadata),
      });
      items.push(message);
    } else {
      const item = callItemsById.get(callIdOf(part.call.providerCallId));
      if (item === undefined || item.payload.type !== 'function_call') continue;
      callItemsById.delete(item.payload.callId);
      const provider: ProviderState = { model, metadata: part.call.metadata ?? {}, callId: part.call.providerCallId };
      items.push({ ...item, payload: { ...item.payload, provider } });
    }
  }
  // Calls the plan made that the stream did not order (none today) keep the plan's order.
  items.push(...callItemsById.values());
  return items;
}
