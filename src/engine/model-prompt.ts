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
  const segments: Segment[] = [];
  for (let start = 0; start < items.length;) {
    let end = start + 1;
    while (end < items.length && !isUserMessage(items[end]!.payload)) end++;
    segments.push({ start, end, earlier: earlierConversion(items, start, end, model) });
    start = end;
  }
  const promptIds = providerCallIds(items, segments, model);
  const fold: PromptFold = {
    model,
    prompt,
    names: new Map(),
    answered: new Set(),
    promptId: (callId) => promptIds.get(callId) ?? callId,
  };
  for (const segment of segments) addSegment(fold, items, segment);
  return prompt;
}

/** A user message and what follows it up to the next, by position in the window. */
interface Segment {
  start: number;
  end: number;
  /** How the same items were converted for this model before, if they were. */
  earlier: ConvertedSegment | undefined;
}

/** What converting a window carries from item to item. */
interface PromptFold {
  readonly model: string;
  readonly prompt: LanguageModelV3Message[];
  /** Calls seen so far: id → tool name. */
  readonly names: Map<string, string>;
  /** Calls whose result the prompt already has. */
  readonly answered: Set<string>;
  /** The id the provider is shown for a call. */
  readonly promptId: (callId: string) => string;
}

function isUserMessage(payload: WindowItem['payload']): boolean {
  return payload.type === 'message' && payload.role === 'user';
}

/**
 * The messages one segment of a window (a user message and what follows it, up to the next user
 * message) was converted to, with what they were converted from. A segment whose results all answer
 * calls of the segment itself depends on nothing before it but the ids its calls are shown by:
 * from one step to the next, a window shares all its segments but the last with the previous
 * window, so those are taken as they were instead of converted item by item again.
 */
interface ConvertedSegment {
  model: string;
  /** The payloads of the segment, in order (the same objects: the window serves them). */
  payloads: readonly object[];
  /** Its calls, with the ids they were shown by, their tool names and their provider's ids. */
  calls: readonly SegmentCall[];
  /** Calls its results answered. */
  answered: readonly string[];
  messages: readonly LanguageModelV3Message[];
}

interface SegmentCall {
  callId: string;
  promptId: string;
  name: string;
  /** The provider's own id of the call, when the model of the conversion made it. */
  providerId: string | undefined;
}

const convertedSegments = new WeakMap<object, ConvertedSegment>();

/** The earlier conversion of the same items (the same payload objects) for `model`, if any. */
function earlierConversion(
  items: readonly WindowItem[],
  start: number,
  end: number,
  model: string,
): ConvertedSegment | undefined {
  const earlier = convertedSegments.get(items[start]!.payload);
  if (earlier === undefined || earlier.model !== model || earlier.payloads.length !== end - start) return undefined;
  for (let index = start; index < end; index++)
    if (items[index]!.payload !== earlier.payloads[index - start]) return undefined;
  return earlier;
}

function addSegment(fold: PromptFold, items: readonly WindowItem[], { start, end, earlier }: Segment): void {
  const first = items[start]!.payload;
  const keyed = isUserMessage(first);
  // The ids the calls are shown by depend on the whole window (a provider id shown only while unique).
  if (earlier && earlier.calls.every((call) => fold.promptId(call.callId) === call.promptId)) {
    for (const call of earlier.calls) fold.names.set(call.callId, call.name);
    for (const callId of earlier.answered) fold.answered.add(callId);
    fold.prompt.push(...earlier.messages);
    return;
  }
  const from = fold.prompt.length;
  const calls: SegmentCall[] = [];
  const answered: string[] = [];
  let closed = true;
  let lastGroup: string | null = null;
  for (let index = start; index < end; index++) {
    const item = items[index]!;
    const payload = item.payload;
    // A result of a call made before the segment (an asynchronous call's late result) is
    // converted by what came before: such a segment is converted anew each time.
    if (payload.type === 'function_call_output' && !calls.some((call) => call.callId === payload.callId))
      closed = false;
    const effect = addItem(fold, item, lastGroup);
    if (effect.call) calls.push(effect.call);
    if (effect.answered !== undefined) answered.push(effect.answered);
    if (!effect.skipped) lastGroup = item.groupId;
  }
  if (keyed && closed) {
    convertedSegments.set(first, {
      model: fold.model,
      payloads: items.slice(start, end).map((item) => item.payload),
      calls,
      answered,
      messages: fold.prompt.slice(from),
    });
  }
}

/** What converting one item did besides adding to the prompt. */
interface ItemEffect {
  skipped?: boolean;
  call?: SegmentCall;
  answered?: string;
}

const SKIPPED: ItemEffect = { skipped: true };
const NOTHING: ItemEffect = {};

function addItem(fold: PromptFold, item: WindowItem, lastGroup: string | null): ItemEffect {
  const { model, prompt, names, answered } = fold;
  const payload = item.payload;
  const last = prompt[prompt.length - 1];
  if (payload.type === 'message' && payload.role === 'system') return SKIPPED;
  if (payload.type === 'message' && payload.role === 'user') {
    prompt.push({ role: 'user', content: memoised(payload, '', '', () => payload.content.map(toUserPart)) });
    return NOTHING;
  }
  if (payload.type === 'reasoning' && payload.provider.model !== model) return SKIPPED;
  if (payload.type === 'message' || payload.type === 'function_call' || payload.type === 'reasoning') {
    const toolCallId = payload.type === 'function_call' ? fold.promptId(payload.callId) : '';
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
    if (last && last.role === 'assistant' && lastGroup === item.groupId) last.content.push(part);
    else prompt.push({ role: 'assistant', content: [part] });
    if (payload.type !== 'function_call') return NOTHING;
    names.set(payload.callId, payload.name);
    const providerId = payload.provider?.model === model ? payload.provider.callId : undefined;
    return { call: { callId: payload.callId, promptId: toolCallId, name: payload.name, providerId } };
  }
  if (!names.has(payload.callId) || answered.has(payload.callId)) {
    // A late result of an asynchronous call (its call was answered by a placeholder when it was
    // made): providers accept one result per call, so the model reads this one as a message.
    prompt.push({
      role: 'user',
      content: [{ type: 'text', text: lateResultText(payload.name, payload.callId, payload.output, payload.isError) }],
    });
    return NOTHING;
  }
  answered.add(payload.callId);
  const toolCallId = fold.promptId(payload.callId);
  const toolName = names.get(payload.callId) ?? payload.name;
  const part = memoised(payload, toolCallId, toolName, (): LanguageModelV3ToolResultPart => ({
    type: 'tool-result',
    toolCallId,
    toolName,
    output: toToolOutput(payload.output, payload.isError),
  }));
  if (last && last.role === 'tool') last.content.push(part);
  else prompt.push({ role: 'tool', content: [part] });
  return { answered: payload.callId };
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
 * in the window (some local servers number calls per step, `call_0`, and would repeat them). The
 * calls of segments converted before are known from then; only the others' items are read.
 */
function providerCallIds(
  items: readonly WindowItem[],
  segments: readonly Segment[],
  model: string,
): Map<string, string> {
  // Provider id → Baton's call id, or null once a second call shows the provider id repeats.
  const byProviderId = new Map<string, string | null>();
  const note = (providerId: string, callId: string) =>
    byProviderId.set(providerId, byProviderId.has(providerId) ? null : callId);
  for (const { start, end, earlier } of segments) {
    if (earlier) {
      for (const call of earlier.calls) if (call.providerId) note(call.providerId, call.callId);
      continue;
    }
    for (let index = start; index < end; index++) {
      const payload = items[index]!.payload;
      if (payload.type === 'function_call' && payload.provider?.model === model && payload.provider.callId)
        note(payload.provider.callId, payload.callId);
    }
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
