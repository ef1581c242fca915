import type { LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import type { ContentPart } from '../store/records.ts';
import type { WindowItem } from '../store/store.ts';

/**
 * Converts stored items into the provider-level prompt (`LanguageModelV3Prompt`) that every AI
 * SDK provider accepts. Items of one assistant step become one message; consecutive outputs
 * become one tool message, so parallel calls are answered together. Built directly, without the
 * SDK's per-call schema validation of the whole history, whose cost grew with every turn.
 */
export function toModelPrompt(instructions: string, items: readonly WindowItem[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = instructions ? [{ role: 'system', content: instructions }] : [];
  const names = new Map<string, string>();
  let lastGroup: string | null = null;
  for (const item of items) {
    const payload = item.payload;
    const last = prompt[prompt.length - 1];
    if (payload.type === 'message' && payload.role === 'user') {
      prompt.push({ role: 'user', content: payload.content.map(toUserPart) });
    } else if (payload.type === 'message' || payload.type === 'function_call') {
      const part =
        payload.type === 'message'
          ? { type: 'text' as const, text: payload.content.map((p) => (p.type === 'text' ? p.text : '')).join('') }
          : { type: 'tool-call' as const, toolCallId: payload.callId, toolName: payload.name, input: parseArguments(payload.arguments) };
      if (payload.type === 'function_call') names.set(payload.callId, payload.name);
      if (last && last.role === 'assistant' && lastGroup === item.groupId) last.content.push(part);
      else prompt.push({ role: 'assistant', content: [part] });
    } else {
      const part = {
        type: 'tool-result' as const,
        toolCallId: payload.callId,
        toolName: names.get(payload.callId) ?? payload.name,
        output: toToolOutput(payload.output, payload.isError),
      };
      if (last && last.role === 'tool') last.content.push(part);
      else prompt.push({ role: 'tool', content: [part] });
    }
    lastGroup = item.groupId;
  }
  return prompt;
}

function toUserPart(part: ContentPart) {
  return part.type === 'text'
    ? { type: 'text' as const, text: part.text }
    : { type: 'file' as const, data: part.data, mediaType: part.mediaType };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Invalid calls keep the model's raw text so it can see what it got wrong.
    return { _raw: text };
  }
}

function toToolOutput(output: readonly ContentPart[], isError: boolean): LanguageModelV3ToolResultOutput {
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
