import type { WindowItem } from '../domain/queries.ts';

/**
 * The window of history sent to the model: the latest items, cut so it starts at a user message.
 * Starting mid-exchange would hand the provider a tool result without its call, which strict
 * providers reject.
 */
export function trimToUserBoundary<Item extends WindowItem>(items: readonly Item[], isWholeHistory: boolean): Item[] {
  if (isWholeHistory) return [...items];
  const start = items.findIndex((item) => item.payload.type === 'message' && item.payload.role === 'user');
  if (start !== -1) return items.slice(start);
  // No user message in the window (one very long turn): at least drop outputs whose call fell out.
  const firstCall = items.findIndex((item) => item.payload.type !== 'function_call_output');
  return firstCall === -1 ? [] : items.slice(firstCall);
}
