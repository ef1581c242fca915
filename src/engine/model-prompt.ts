import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { WindowItem } from '../domain/queries.ts';
import {
  addSegment,
  earlierConversion,
  isUserMessage,
  newFold,
  providerIdOf,
  type Segment,
  type SegmentRecord,
} from './prompt-segments.ts';

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
  const conversion = continuedConversion(instructions, items, model) ?? convertedWindow(instructions, items, model);
  keepConversion(conversion);
  return conversion.prompt;
}

/** Converts a window segment by segment, taking segments converted for earlier windows as they were. */
function convertedWindow(instructions: string, items: readonly WindowItem[], model: string): WindowConversion {
  const segments = segmentsOf(items, 0, model);
  const { counts, promptIds } = providerCallIds(items, segments, model);
  const fold = newFold(model, (callId) => promptIds.get(callId) ?? callId);
  const records = segments.map((segment) => addSegment(fold, items, segment, segment.start));
  return windowConversion(instructions, model, items, 0, records, counts);
}
/** The segments of the window's items from `from` on, each with its earlier conversion if there is one. */
function segmentsOf(items: readonly WindowItem[], from: number, model: string): Segment[] {
  const segments: Segment[] = [];
  for (let start = from; start < items.length;) {
    let end = start + 1;
    while (end < items.length && !isUserMessage(items[end]!.payload)) end++;
    segments.push({ start, end, earlier: earlierConversion(items, start, end, model) });
    start = end;
  }
  return segments;
}

/**
 * A window's prompt, kept so that the next step of the same conversation continues from it. From
 * one step to the next a window loses segments at its start and gains items at its end; the next
 * prompt takes the segments both share as they were and converts only the new items, with the
 * last segment they extend, instead of reading every item of the window again.
 */
interface WindowConversion {
  readonly model: string;
  readonly instructions: string;
  readonly items: readonly WindowItem[];
  /** The position of `items[0]` in the conversation, counted from the first window converted. */
  readonly base: number;
  readonly segments: readonly SegmentRecord[];
  /** How many calls of the window, made by `model`, show each provider id (the next conversion's to change). */
  readonly providerIdCounts: Map<string, number>;
  /** The segments' messages in order, the prompt without its system message: the next prompt takes a slice. */
  readonly messages: readonly LanguageModelV3Message[];
  /** How many segments have system texts, and how many are not closed: counted, so a continuation need not read each segment. */
  readonly systemSegments: number;
  readonly openSegments: number;
  readonly prompt: LanguageModelV3Prompt;
}

/** Conversions by the payload of their window's last item, which the next window holds near its end. */
const conversions = new WeakMap<object, WindowConversion>();
/** How far from its end the next window may hold the last item of the one before. */
const NEW_ITEMS_LOOKED_AT = 64;

function keepConversion(conversion: WindowConversion): void {
  const last = conversion.items[conversion.items.length - 1];
  if (last) conversions.set(last.payload, conversion);
}

/** What a conversion counted of its segments, so that the next one need not read them again. */
type SegmentCounts = Pick<WindowConversion, 'messages' | 'systemSegments' | 'openSegments'>;

function windowConversion(
  instructions: string,
  model: string,
  items: readonly WindowItem[],
  base: number,
  segments: readonly SegmentRecord[],
  providerIdCounts: Map<string, number>,
  counted: SegmentCounts = countsOf(segments),
): WindowConversion {
  const prompt = promptOf(instructions, segments, counted);
  return { model, instructions, items, base, segments, providerIdCounts, ...counted, prompt };
}

function countsOf(segments: readonly SegmentRecord[]): SegmentCounts {
  const messages: LanguageModelV3Message[] = [];
  let systemSegments = 0;
  let openSegments = 0;
  for (const segment of segments) {
    for (const message of segment.messages) messages.push(message);
    if (segment.systemTexts.length > 0) systemSegments++;
    if (!segment.closed) openSegments++;
  }
  return { messages, systemSegments, openSegments };
}

/**
 * The prompt: the system message, then the segments' messages. System and developer messages from
 * the input join the instructions at the top: several providers refuse a system message after the
 * conversation has started. A window without them (the usual one) is not read segment by segment.
 */
function promptOf(
  instructions: string,
  segments: readonly SegmentRecord[],
  { messages, systemSegments }: SegmentCounts,
): LanguageModelV3Prompt {
  const systemTexts = [instructions];
  if (systemSegments > 0)
    for (const segment of segments) if (segment.systemTexts.length > 0) systemTexts.push(...segment.systemTexts);
  const system = systemTexts.filter((text) => text !== '').join('\n\n');
  return system ? [{ role: 'system', content: system }, ...messages] : [...messages];
}

/**
 * The window's prompt continued from the previous step's, or undefined when the window is not
 * that one's from a segment's start on plus new items, or when what changed could change how a
 * shared segment converts: a provider id that stops or starts being unique, a new result of a call
 * made before the new items, a shared segment with a late result. Then the window is converted
 * as a whole (`convertedWindow`), which the tests compare this with.
 */
function continuedConversion(
  instructions: string,
  items: readonly WindowItem[],
  model: string,
): WindowConversion | undefined {
  let previous: WindowConversion | undefined;
  let lastShared = items.length - 1;
  for (const stop = Math.max(0, items.length - NEW_ITEMS_LOOKED_AT); lastShared >= stop; lastShared--) {
    previous = conversions.get(items[lastShared]!.payload);
    if (previous) break;
  }
  if (!previous || previous.model !== model || previous.instructions !== instructions) return undefined;
  const dropped = previous.items.length - 1 - lastShared;
  if (dropped < 0) return undefined;
  for (let index = 0; index <= lastShared; index++) {
    const item = items[index]!;
    const before = previous.items[dropped + index]!;
    if (item !== before && item.payload !== before.payload) return undefined;
  }
  const base = previous.base + dropped;
  const segments = previous.segments;
  const first = segments.findIndex((segment) => segment.at >= base);
  const last = segments.length - 1;
  if (first === -1 || segments[first]!.at !== base) return undefined;
  // The segments left behind and the last one, converted again: the kept ones are counted, not read.
  const changed = [...segments.slice(0, first), segments[last]!];
  const changedOpen = changed.filter((segment) => !segment.closed).length;
  if (previous.openSegments > changedOpen) return undefined;

  const counts = previous.providerIdCounts;
  // Ids of the segments left behind, and of the last one, converted again with the new items.
  const leaving = new Set<string>();
  for (const segment of changed)
    for (const providerId of segment.providerIds) {
      // A repeated id becoming unique would change how a kept segment shows its call.
      if ((counts.get(providerId) ?? 0) > 1) return undefined;
      leaving.add(providerId);
    }
  const tailStart = segments[last]!.at - base;
  const tail = tailOf(items, tailStart, model);
  if (!tail) return undefined;
  for (const providerId of tail.providerIds) if (counts.has(providerId) && !leaving.has(providerId)) return undefined;

  // Past the last check: the previous conversion's counts become this one's (a window holds a
  // thousand calls, whose copy at every step cost more than the rest of the continuation), and
  // the previous conversion is forgotten below, so nothing reads them as they were.
  for (const providerId of leaving) counts.delete(providerId);
  for (const providerId of tail.providerIds) counts.set(providerId, (counts.get(providerId) ?? 0) + 1);

  const fold = newFold(model, (callId) => {
    const providerId = tail.providerIdByCall.get(callId);
    return providerId !== undefined && counts.get(providerId) === 1 ? providerId : callId;
  });
  const added = segmentsOf(items, tailStart, model).map((segment) =>
    addSegment(fold, items, segment, base + segment.start),
  );
  // One conversion kept per conversation: the next step continues from this one.
  conversions.delete(items[lastShared]!.payload);
  return continuedWindow(previous, first, changed, added, { items, base, counts });
}

/**
 * The continued window's conversion: the kept segments' messages are a slice of the previous
 * conversion's, and what it counted is changed by the segments that left and came, so the cost
 * follows the new items, not the window (copying the messages is the one step that does not).
 */
function continuedWindow(
  previous: WindowConversion,
  first: number,
  changed: readonly SegmentRecord[],
  added: readonly SegmentRecord[],
  { items, base, counts }: { items: readonly WindowItem[]; base: number; counts: Map<string, number> },
): WindowConversion {
  const last = previous.segments.length - 1;
  const segments = [...previous.segments.slice(first, last), ...added];
  const messageCount = (list: readonly SegmentRecord[]) =>
    list.reduce((sum, segment) => sum + segment.messages.length, 0);
  const droppedMessages = messageCount(previous.segments.slice(0, first));
  const messages = previous.messages.slice(
    droppedMessages,
    previous.messages.length - previous.segments[last]!.messages.length,
  );
  for (const segment of added) for (const message of segment.messages) messages.push(message);
  const withSystem = (list: readonly SegmentRecord[]) =>
    list.filter((segment) => segment.systemTexts.length > 0).length;
  const counted = {
    messages,
    systemSegments: previous.systemSegments - withSystem(changed) + withSystem(added),
    openSegments: added.filter((segment) => !segment.closed).length,
  };
  return windowConversion(previous.instructions, previous.model, items, base, segments, counts, counted);
}

/**
 * The calls of the window's items from `start` on, when all its results answer those calls (a
 * result of an earlier call is converted by what came before: then the window is converted whole).
 */
function tailOf(
  items: readonly WindowItem[],
  start: number,
  model: string,
): { providerIds: string[]; providerIdByCall: Map<string, string> } | undefined {
  const calls = new Set<string>();
  const providerIds: string[] = [];
  const providerIdByCall = new Map<string, string>();
  for (let index = start; index < items.length; index++) {
    const payload = items[index]!.payload;
    if (payload.type === 'function_call_output' && !calls.has(payload.callId)) return undefined;
    if (payload.type !== 'function_call') continue;
    calls.add(payload.callId);
    const providerId = providerIdOf(payload, model);
    if (providerId) {
      providerIds.push(providerId);
      providerIdByCall.set(payload.callId, providerId);
    }
  }
  return { providerIds, providerIdByCall };
}

/**
 * Baton's call id → the provider's, for the calls `model` made, where the provider's id is unique
 * in the window (some local servers number calls per step, `call_0`, and would repeat them), with
 * how many calls of the window show each provider id. The calls of segments converted before are
 * known from then; only the others' items are read.
 */
function providerCallIds(
  items: readonly WindowItem[],
  segments: readonly Segment[],
  model: string,
): { counts: Map<string, number>; promptIds: Map<string, string> } {
  const counts = new Map<string, number>();
  const callIds = new Map<string, string>();
  const note = (providerId: string, callId: string) => {
    counts.set(providerId, (counts.get(providerId) ?? 0) + 1);
    callIds.set(providerId, callId);
  };
  for (const { start, end, earlier } of segments) {
    if (earlier) {
      for (const call of earlier.calls) if (call.providerId) note(call.providerId, call.callId);
      continue;
    }
    for (let index = start; index < end; index++) {
      const providerId = providerIdOf(items[index]!.payload, model);
      if (providerId) note(providerId, (items[index]!.payload as { callId: string }).callId);
    }
  }
  const promptIds = new Map<string, string>();
  for (const [providerId, callId] of callIds) if (counts.get(providerId) === 1) promptIds.set(callId, providerId);
  return { counts, promptIds };
}
