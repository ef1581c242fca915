import type { ModelMessage, ToolResultPart } from 'ai';
import type { ContentPart, ItemRecord } from '../store/records.ts';

/**
 * Converts stored items into the AI SDK's provider-neutral messages. Items of one group become one
 * message; consecutive outputs become one tool message, so parallel calls are answered together.
 */
export function toModelMessages(items: readonly ItemRecord[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const names = new Map<string, string>();
  for (const item of items) {
    const payload = item.payload;
    const last = messages[messages.length - 1];
    if (payload.type === 'message') {
      if (payload.role === 'user') {
        messages.push({ role: 'user', content: payload.content.map(toUserPart) });
      } else {
        const text = payload.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
        if (last && last.role === 'assistant' && Array.isArray(last.content)) last.content.push({ type: 'text', text });
        else messages.push({ role: 'assistant', content: [{ type: 'text', text }] });
      }
    } else if (payload.type === 'function_call') {
      names.set(payload.callId, payload.name);
      const part = { type: 'tool-call' as const, toolCallId: payload.callId, toolName: payload.name, input: parseArguments(payload.arguments) };
      if (last && last.role === 'assistant' && Array.isArray(last.content)) last.content.push(part);
      else messages.push({ role: 'assistant', content: [part] });
    } else {
      const part: ToolResultPart = {
        type: 'tool-result',
        toolCallId: payload.callId,
        toolName: names.get(payload.callId) ?? payload.name,
        output: toToolOutput(payload.output, payload.isError),
      };
      if (last && last.role === 'tool') last.content.push(part);
      else messages.push({ role: 'tool', content: [part] });
    }
  }
  return messages;
}

function toUserPart(part: ContentPart) {
  return part.type === 'text'
    ? { type: 'text' as const, text: part.text }
    : { type: 'image' as const, image: part.data, mediaType: part.mediaType };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Invalid calls keep the model's raw text so it can see what it got wrong.
    return { _raw: text };
  }
}

function toToolOutput(output: ContentPart[], isError: boolean): ToolResultPart['output'] {
  if (output.some((part) => part.type === 'image')) {
    return {
      type: 'content',
      value: output.map((part) =>
        part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'image-data' as const, data: part.data, mediaType: part.mediaType },
      ),
    };
  }
  const text = output.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return isError ? { type: 'error-text', value: text } : { type: 'text', value: text };
}

/**
 * The window of history sent to the model: the latest items, cut so it starts at a user message.
 * Starting mid-exchange would hand the provider a tool result without its call, which strict
 * providers reject.
 */
export function trimToUserBoundary(items: readonly ItemRecord[], isWholeHistory: boolean): ItemRecord[] {
  if (isWholeHistory) return [...items];
  const start = items.findIndex((item) => item.payload.type === 'message' && item.payload.role === 'user');
  if (start !== -1) return items.slice(start);
  // No user message in the window (one very long turn): at least drop outputs whose call fell out.
  const firstCall = items.findIndex((item) => item.payload.type !== 'function_call_output');
  return firstCall === -1 ? [] : items.slice(firstCall);
}

/** Concatenated text of content parts. */
export function contentText(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
