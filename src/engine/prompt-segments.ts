import type {
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3ReasoningPart,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type { ContentPart, ProviderState } from '../domain/records.ts';
import type { WindowItem } from '../domain/queries.ts';

/**
 * The conversion of a window's segments (a user message and what follows it, up to the next) and
 * items into provider-level messages, for `toModelPrompt` (model-prompt.ts). Items of one
 * assistant step become one message; consecutive outputs become one tool message, so parallel
 * calls are answered together. A segment's conversion is kept and taken again as it was while its
 * items and what it depends on are the same.
 */

/** What one segment of a window became. */
export interface SegmentRecord {
  /** The position of its first item (`base` plus its index in the window it was converted in). */
  readonly at: number;
  readonly messages: readonly LanguageModelV3Message[];
  readonly systemTexts: readonly string[];
  /** The provider ids of its calls made by the model. */
  readonly providerIds: readonly string[];
  /** Whether its results all answer its own calls: then it depends on nothing before it. */
  readonly closed: boolean;
}

/** A user message and what follows it up to the next, by position in the window. */
export interface Segment {
  start: number;
  end: number;
  /** How the same items were converted for this model before, if they were. */
  earlier: ConvertedSegment | undefined;
}

/** What converting a window carries from item to item. */
export interface PromptFold {
  readonly model: string;
  /** The conversation's messages (the system message goes on top once the window is converted). */
  readonly prompt: LanguageModelV3Message[];
  /** Calls seen so far: id → tool name. */
  readonly names: Map<string, string>;
  /** Calls whose result the prompt already has. */
  readonly answered: Set<string>;
  /** The id the provider is shown for a call. */
  readonly promptId: (callId: string) => string;
}

export function newFold(model: string, promptId: (callId: string) => string): PromptFold {
  return { model, prompt: [], names: new Map(), answered: new Set(), promptId };
}

export function isUserMessage(payload: WindowItem['payload']): boolean {
  return payload.type === 'message' && payload.role === 'user';
}

/**
 * The messages one segment of a window (a user message and what follows it, up to the next user
 * message) was converted to, with what they were converted from. A segment whose results all answer
 * calls of the segment itself depends on nothing before it but the ids its calls are shown by:
 * from one step to the next, a window shares all its segments but the last with the previous
 * window, so those are taken as they were instead of converted item by item again.
 */
export interface ConvertedSegment {
  model: string;
  /** The payloads of the segment, in order (the same objects: the window serves them). */
  payloads: readonly object[];
  /** Its calls, with the ids they were shown by, their tool names and their provider's ids. */
  calls: readonly SegmentCall[];
  /** Calls its results answered. */
  answered: readonly string[];
  messages: readonly LanguageModelV3Message[];
}

export interface SegmentCall {
  callId: string;
  promptId: string;
  name: string;
  /** The provider's own id of the call, when the model of the conversion made it. */
  providerId: string | undefined;
}

const convertedSegments = new WeakMap<object, ConvertedSegment>();

/** The earlier conversion of the same items (the same payload objects) for `model`, if any. */
export function earlierConversion(
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

/** Converts one segment of the window into `fold`: what it became, recorded at position `at`. */
export function addSegment(
  fold: PromptFold,
  items: readonly WindowItem[],
  segment: Segment,
  at: number,
): SegmentRecord {
  const { start, end, earlier } = segment;
  const first = items[start]!.payload;
  const keyed = isUserMessage(first);
  const systemTexts = systemTextsOf(items, start, end);
  const from = fold.prompt.length;
  // The ids the calls are shown by depend on the whole window (a provider id shown only while unique).
  if (earlier && earlier.calls.every((call) => fold.promptId(call.callId) === call.promptId)) {
    for (const call of earlier.calls) fold.names.set(call.callId, call.name);
    for (const callId of earlier.answered) fold.answered.add(callId);
    fold.prompt.push(...earlier.messages);
    return { at, messages: earlier.messages, systemTexts, providerIds: providerIdsOf(earlier.calls), closed: true };
  }
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
  const messages = fold.prompt.slice(from);
  if (keyed && closed) {
    convertedSegments.set(first, {
      model: fold.model,
      payloads: items.slice(start, end).map((item) => item.payload),
      calls,
      answered,
      messages,
    });
  }
  return { at, messages, systemTexts, providerIds: providerIdsOf(calls), closed };
}

const NONE: readonly string[] = [];

/** System and developer messages of the input: they join the instructions at the top. */
function systemTextsOf(items: readonly WindowItem[], start: number, end: number): readonly string[] {
  let texts: string[] | undefined;
  for (let index = start; index < end; index++) {
    const payload = items[index]!.payload;
    if (payload.type === 'message' && payload.role === 'system') (texts ??= []).push(textOf(payload.content));
  }
  return texts ?? NONE;
}

function providerIdsOf(calls: readonly SegmentCall[]): readonly string[] {
  let ids: string[] | undefined;
  for (const call of calls) if (call.providerId) (ids ??= []).push(call.providerId);
  return ids ?? NONE;
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

/** The provider's own id of a call `model` made, if the item is one. */
export function providerIdOf(payload: WindowItem['payload'], model: string): string | undefined {
  return payload.type === 'function_call' && payload.provider?.model === model ? payload.provider.callId : undefined;
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
