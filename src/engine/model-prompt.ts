import type {
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3ReasoningPart,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type { ContentPart, ProviderState } from '../domain/records.ts';
import type { WindowItem } from '../domain/queries.ts';

/**
 * Converts stored items into the provider-level prompt (`LanguageModelV3Prompt`) that every AI
 * SDK provider accepts. Items of one assistant step become one message; consecutive outputs
 * become one tool message, so parallel calls are answered together. Built directly, without the
 * SDK's per-call schema validation of the whole history, whose cost grew with every turn.
 *
 * What a provider attached to the model's parts (signatures, item ids, encrypted reasoning) goes
 * back as the parts' `providerOptions`, as the AI SDK's own loop sends it, but only to the model
 * that produced it: when the conversation continues on another model (an agent update, a
 * Responses `model` switch), its text stays and its reasoning and signatures are left out.
 */
export function toModelPrompt(
  instructions: string,
  items: readonly WindowItem[],
  model: string,
): LanguageModelV3Prompt {
  // System and developer messages from the input join the instructions at the top: several
  // providers refuse a system message after the conversation has started.
  const systemTexts = [instructions];
  for (const { payload } of items) {
    if (payload.type === 'message' && payload.role === 'system') systemTexts.push(textOf(payload.content));
  }
  const system = systemTexts.filter((text) => text !== '').join('\n\n');
  const prompt: LanguageModelV3Message[] = system ? [{ role: 'system', content: system }] : [];
  const names = new Map<string, string>();
  const answered = new Set<string>();
  const promptIds = providerCallIds(items, model);
  const promptId = (callId: string) => promptIds.get(callId) ?? callId;
  let lastGroup: string | null = null;
  for (const item of items) {
    const payload = item.payload;
    const last = prompt[prompt.length - 1];
    if (payload.type === 'message' && payload.role === 'system') continue;
    if (payload.type === 'message' && payload.role === 'user') {
      prompt.push({ role: 'user', content: memoised(payload, '', '', () => payload.content.map(toUserPart)) });
    } else if (payload.type === 'reasoning' && payload.provider.model !== model) {
      continue;
    } else if (payload.type === 'message' || payload.type === 'function_call' || payload.type === 'reasoning') {
      const toolCallId = payload.type === 'function_call' ? promptId(payload.callId) : '';
      const part = memoised(payload, model, toolCallId, (): AssistantPart => {
        const providerOptions = providerOptionsOf(payload.provider, model);
        return payload.type === 'message'
          ? { type: 'text', text: textOf(payload.content), ...providerOptions }
          : payload.type === 'reasoning'
            ? { type: 'reasoning', text: payload.text, ...providerOptions }
            : {
                type: 'tool-call',
                toolCallId,
                toolName: payload.name,
                input: parseArguments(payload.arguments),
                ...providerOptions,
              };
      });
      if (payload.type === 'function_call') names.set(payload.callId, payload.name);
      if (last && last.role === 'assistant' && lastGroup === item.groupId) last.content.push(part);
      else prompt.push({ role: 'assistant', content: [part] });
    } else if (!names.has(payload.callId) || answered.has(payload.callId)) {
      // A late result of an asynchronous call (its call was answered by a placeholder when it was
      // made): providers accept one result per call, so the model reads this one as a message.
      prompt.push({
        role: 'user',
        content: [
          { type: 'text', text: lateResultText(payload.name, payload.callId, payload.output, payload.isError) },
        ],
      });
    } else {
      answered.add(payload.callId);
      const toolCallId = promptId(payload.callId);
      const toolName = names.get(payload.callId) ?? payload.name;
      const part = memoised(payload, toolCallId, toolName, (): LanguageModelV3ToolResultPart => ({
        type: 'tool-result',
        toolCallId,
        toolName,
        output: toToolOutput(payload.output, payload.isError),
      }));
      if (last && last.role === 'tool') last.content.push(part);
      else prompt.push({ role: 'tool', content: [part] });
    }
    lastGroup = item.groupId;
  }
  return prompt;
}

type AssistantPart = LanguageModelV3TextPart | LanguageModelV3ReasoningPart | LanguageModelV3ToolCallPart;

/**
 * Prompt parts already made from a stored payload, with what else they were made from (the model,
 * the call id shown to the provider, the tool name). A history window serves the same payload
 * objects from step to step (`history-windows.ts`), so each item is converted once rather than at
 * every step, where converting 200 items was a tenth of a round trip. The parts are shared by the
 * prompts made since: nothing downstream changes a prompt it is given.
 */
const madeFrom = new WeakMap<object, { first: string; second: string; made: unknown }>();

function memoised<T>(payload: object, first: string, second: string, make: () => T): T {
  const earlier = madeFrom.get(payload);
  if (earlier !== undefined && earlier.first === first && earlier.second === second) return earlier.made as T;
  const made = make();
  madeFrom.set(payload, { first, second, made });
  return made;
}

/**
 * Baton's call id → the provider's, for the calls `model` made, where the provider's id is unique
 * in the window (some local servers number calls per step, `call_0`, and would repeat them).
 */
function providerCallIds(items: readonly WindowItem[], model: string): Map<string, string> {
  // Provider id → Baton's call id, or null once a second call shows the provider id repeats.
  const byProviderId = new Map<string, string | null>();
  for (const { payload } of items) {
    if (payload.type !== 'function_call' || payload.provider?.model !== model || !payload.provider.callId) continue;
    const providerId = payload.provider.callId;
    byProviderId.set(providerId, byProviderId.has(providerId) ? null : payload.callId);
  }
  const ids = new Map<string, string>();
  for (const [providerId, callId] of byProviderId) if (callId !== null) ids.set(callId, providerId);
  return ids;
}

function providerOptionsOf(
  provider: ProviderState | undefined,
  model: string,
): { providerOptions?: SharedV3ProviderOptions } {
  if (provider === undefined || provider.model !== model) return {};
  // Stored as the provider's `providerMetadata`, which has the same shape (namespace → JSON object).
  return { providerOptions: provider.metadata as SharedV3ProviderOptions };
}

function lateResultText(name: string, callId: string, output: readonly ContentPart[], isError: boolean): string {
  const text = output.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
  return `${isError ? 'Error from' : 'Result of'} the asynchronous tool call ${name} (${callId}): ${text}`;
}

function textOf(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function toUserPart(part: ContentPart): LanguageModelV3TextPart | LanguageModelV3FilePart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image') return { type: 'file', data: part.data, mediaType: part.mediaType };
  return {
    type: 'file',
    data: part.url !== null ? new URL(part.url) : (part.data ?? ''),
    mediaType: part.mediaType,
    ...(part.filename !== null ? { filename: part.filename } : {}),
  };
}

type ToolOutputPart = Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>['value'][number];

function toToolOutputPart(part: ContentPart): ToolOutputPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image') return { type: 'image-data', data: part.data, mediaType: part.mediaType };
  if (part.url !== null)
    return part.mediaType.startsWith('image/')
      ? { type: 'image-url', url: part.url }
      : { type: 'file-url', url: part.url };
  return {
    type: 'file-data',
    data: part.data ?? '',
    mediaType: part.mediaType,
    ...(part.filename !== null ? { filename: part.filename } : {}),
  };
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
  if (output.some((part) => part.type !== 'text')) return { type: 'content', value: output.map(toToolOutputPart) };
  const text = output.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return isError ? { type: 'error-text', value: text } : { type: 'text', value: text };
}
