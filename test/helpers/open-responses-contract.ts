/**
 * Test-only contract checker for `/v1/responses`, written from the Open Responses spec notes
 * (shared/reference/open-responses.md §1.2, §1.3, §2, §3). The upstream compliance suite runs a
 * zod safeParse on every response body and every SSE event, and the `openai` client needs a strict
 * event order; these helpers let our own tests fail the same way, without carrying suite code.
 * Objects are deliberately non-strict (`z.object` accepts extra keys), as upstream allows
 * vendor extras.
 */
import { z } from 'zod';

const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']);
const nullableString = z.string().nullable();

const outputTextPart = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  // Required even when empty: clients iterate it unconditionally.
  annotations: z.array(z.unknown()),
  logprobs: z.array(z.unknown()).optional(),
});
const refusalPart = z.object({ type: z.literal('refusal'), refusal: z.string() });
const inputTextPart = z.object({ type: z.literal('input_text'), text: z.string() });
// Image and file parts have several alternative sources (url, id, inline data), so only the tag is fixed.
const inputImagePart = z.object({
  type: z.literal('input_image'),
  image_url: nullableString.optional(),
  detail: z.string().optional(),
});
const inputFilePart = z.object({
  type: z.literal('input_file'),
  filename: z.string().optional(),
  file_data: z.string().optional(),
});
const reasoningTextPart = z.object({ type: z.literal('reasoning_text'), text: z.string() });
const summaryTextPart = z.object({ type: z.literal('summary_text'), text: z.string() });

const inputParts = [inputTextPart, inputImagePart, inputFilePart] as const;
const messageContentPart = z.discriminatedUnion('type', [outputTextPart, refusalPart, ...inputParts]);

const messageItem = z.object({
  type: z.literal('message'),
  id: z.string(),
  status: itemStatus,
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.array(messageContentPart),
  phase: z.enum(['commentary', 'final_answer']).optional(),
});
const functionCallItem = z.object({
  type: z.literal('function_call'),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  // A JSON *string*, never a parsed object: the SDK and the suite both expect text.
  arguments: z.string(),
  status: itemStatus,
});
const functionCallOutputItem = z.object({
  type: z.literal('function_call_output'),
  id: z.string(),
  call_id: z.string(),
  output: z.union([z.string(), z.array(z.discriminatedUnion('type', [...inputParts]))]),
  status: itemStatus,
});
// The schema has no status on reasoning items even though the prose says every item has one.
const reasoningItem = z.object({
  type: z.literal('reasoning'),
  id: z.string(),
  summary: z.array(summaryTextPart),
  content: z.array(reasoningTextPart).optional(),
  encrypted_content: nullableString.optional(),
});
const compactionItem = z.object({
  type: z.literal('compaction'),
  id: z.string(),
  encrypted_content: z.string(),
  created_by: z.string().optional(),
});

export const outputItemSchema = z.discriminatedUnion('type', [
  messageItem,
  functionCallItem,
  functionCallOutputItem,
  reasoningItem,
  compactionItem,
]);

const toolChoiceMode = z.enum(['none', 'auto', 'required']);
const namedFunction = z.object({ type: z.literal('function'), name: z.string() });

export const responseResourceSchema = z.object({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.int(),
  completed_at: z.int().nullable(),
  status: z.string(), // a free string in the spec schema
  incomplete_details: z.object({ reason: z.string() }).nullable(),
  model: z.string(),
  previous_response_id: nullableString,
  instructions: nullableString,
  output: z.array(outputItemSchema),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  // description/parameters/strict are required-but-nullable: echo null when the client omitted them.
  tools: z.array(
    z.object({
      type: z.literal('function'),
      name: z.string(),
      description: nullableString,
      parameters: z.record(z.string(), z.unknown()).nullable(),
      strict: z.boolean().nullable(),
    }),
  ),
  tool_choice: z.union([
    toolChoiceMode,
    namedFunction,
    z.object({ type: z.literal('allowed_tools'), tools: z.array(namedFunction), mode: toolChoiceMode }),
  ]),
  truncation: z.enum(['auto', 'disabled']),
  parallel_tool_calls: z.boolean(),
  text: z.object({ format: z.object({ type: z.enum(['text', 'json_object', 'json_schema']) }) }),
  top_p: z.number(),
  presence_penalty: z.number(),
  frequency_penalty: z.number(),
  top_logprobs: z.int(),
  temperature: z.number(),
  reasoning: z.object({ effort: nullableString, summary: nullableString }).nullable(),
  usage: z
    .object({
      input_tokens: z.int(),
      output_tokens: z.int(),
      total_tokens: z.int(),
      input_tokens_details: z.object({ cached_tokens: z.int() }),
      output_tokens_details: z.object({ reasoning_tokens: z.int() }),
    })
    .nullable(),
  max_output_tokens: z.int().nullable(),
  max_tool_calls: z.int().nullable(),
  store: z.boolean(),
  background: z.boolean(),
  service_tier: z.string(),
  metadata: z.any(), // typed `any` upstream, but zod 4 still requires the key to be present
  safety_identifier: nullableString,
  prompt_cache_key: nullableString,
});

// Every event shares these two; builders below keep the 24 event shapes short.
const base = <T extends string>(type: T) => ({ type: z.literal(type), sequence_number: z.int() });
const lifecycle = <T extends string>(type: T) => z.object({ ...base(type), response: responseResourceSchema });
const inItem = { item_id: z.string(), output_index: z.int() };
const inPart = { ...inItem, content_index: z.int() };
const inSummary = { ...inItem, summary_index: z.int() };
const optArray = z.array(z.unknown()).optional();
const optString = z.string().optional();
const streamPart = z.discriminatedUnion('type', [outputTextPart, refusalPart, reasoningTextPart]);

export const streamEventSchema = z.discriminatedUnion('type', [
  lifecycle('response.created'),
  lifecycle('response.queued'),
  lifecycle('response.in_progress'),
  lifecycle('response.completed'),
  lifecycle('response.failed'),
  lifecycle('response.incomplete'),
  z.object({ ...base('response.output_item.added'), output_index: z.int(), item: outputItemSchema }),
  z.object({ ...base('response.output_item.done'), output_index: z.int(), item: outputItemSchema }),
  z.object({ ...base('response.content_part.added'), ...inPart, part: streamPart }),
  z.object({ ...base('response.content_part.done'), ...inPart, part: streamPart }),
  z.object({
    ...base('response.output_text.delta'),
    ...inPart,
    delta: z.string(),
    logprobs: optArray,
    obfuscation: optString,
  }),
  z.object({ ...base('response.output_text.done'), ...inPart, text: z.string(), logprobs: optArray }),
  z.object({
    ...base('response.output_text.annotation.added'),
    ...inPart,
    annotation_index: z.int(),
    annotation: z.unknown(),
  }),
  z.object({ ...base('response.refusal.delta'), ...inPart, delta: z.string() }),
  z.object({ ...base('response.refusal.done'), ...inPart, refusal: z.string() }),
  z.object({ ...base('response.function_call_arguments.delta'), ...inItem, delta: z.string(), obfuscation: optString }),
  z.object({ ...base('response.function_call_arguments.done'), ...inItem, arguments: z.string(), name: optString }),
  z.object({ ...base('response.reasoning.delta'), ...inPart, delta: z.string() }),
  z.object({ ...base('response.reasoning.done'), ...inPart, text: z.string() }),
  z.object({ ...base('response.reasoning_summary_part.added'), ...inSummary, part: summaryTextPart }),
  z.object({ ...base('response.reasoning_summary_part.done'), ...inSummary, part: summaryTextPart }),
  z.object({ ...base('response.reasoning_summary_text.delta'), ...inSummary, delta: z.string() }),
  z.object({ ...base('response.reasoning_summary_text.done'), ...inSummary, text: z.string() }),
  // Nested error object: OpenAI's flat form fails the suite's schema (§3).
  z.object({
    ...base('error'),
    error: z.object({ type: z.string(), code: nullableString, message: z.string(), param: nullableString }),
  }),
]);

export type ResponseResource = z.infer<typeof responseResourceSchema>;
export type OutputItem = z.infer<typeof outputItemSchema>;
export type StreamEvent = z.infer<typeof streamEventSchema>;

function formatIssues(error: z.ZodError, prefix = ''): string[] {
  return error.issues.map((issue) => `${prefix}${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
}

/** Violations of the ResponseResource schema, as `path: message`; empty means valid. */
export function checkResponse(value: unknown): string[] {
  const parsed = responseResourceSchema.safeParse(value);
  return parsed.success ? [] : formatIssues(parsed.error);
}

export interface SseFrame {
  event: string | undefined;
  data: string;
}

/** Robust whole-body parse: any line ending, frames split on blank lines, multi-line data joined. */
export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n{2,}/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) frames.push({ event, data: data.join('\n') });
  }
  return frames;
}

/** The JSON payloads of a whole SSE body, without the `[DONE]` sentinel: input for checkStream. */
export function sseJsonEvents(text: string): unknown[] {
  return parseSse(text)
    .filter((frame) => frame.data !== '[DONE]')
    .map((frame) => JSON.parse(frame.data) as unknown);
}

/**
 * Mimics the suite's fragile parser, so a framing mistake fails here rather than only upstream:
 * each network chunk is parsed on its own (per-event state resets per chunk, so a frame split
 * across writes is lost), CR is not stripped (so CRLF frames never terminate), and it reports
 * everything the spec says a server should not do.
 */
export function parseSseLikeSuite(chunks: string[]): { events: unknown[]; sawDone: boolean; problems: string[] } {
  const events: unknown[] = [];
  const problems: string[] = [];
  let sawDone = false;

  chunks.forEach((chunk, c) => {
    const where = `chunk ${c}`;
    if (chunk.includes('\r')) problems.push(`${where}: CRLF/CR line endings (suite parser sees no events)`);
    let eventName: string | undefined;
    let data: string[] = [];
    const lines = chunk.split('\n');
    // Text after the last LF is an unfinished line; the real parser never completes it.
    const tail = lines.pop() ?? '';
    if (tail !== '') problems.push(`${where}: ends mid-line ${JSON.stringify(tail.slice(0, 40))}; dropped`);

    for (const line of lines) {
      if (sawDone && line !== '') {
        problems.push(`${where}: content after data: [DONE]: ${JSON.stringify(line.slice(0, 60))}`);
        continue;
      }
      if (line === '') {
        if (data.length > 0) dispatch(where, eventName, data);
        eventName = undefined;
        data = [];
      } else if (line === '\r' || line.startsWith(':')) {
        // Heartbeat comments are ignored by the suite. A lone CR (CRLF blank line) is already reported and ends nothing.
      } else if (line.startsWith('event:')) {
        eventName = line.slice(6).replace(/^ /, '');
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      } else if (line.startsWith('id:')) {
        problems.push(`${where}: id: line present (servers should not send ids)`);
      } else if (!line.startsWith('retry:')) {
        problems.push(`${where}: unrecognised line ${JSON.stringify(line.slice(0, 60))}`);
      }
    }
    if (eventName !== undefined || data.length > 0) {
      problems.push(`${where}: frame not terminated by a blank line in the same chunk; event dropped`);
    }
  });

  function dispatch(where: string, eventName: string | undefined, data: string[]): void {
    if (data.length > 1) problems.push(`${where}: multi-line data: (${data.length} lines)`);
    const payload = data.join('\n');
    if (payload === '[DONE]') {
      sawDone = true;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      problems.push(`${where}: non-JSON data ${JSON.stringify(payload.slice(0, 60))}`);
      return;
    }
    const type = typeof parsed === 'object' && parsed !== null ? (parsed as { type?: unknown }).type : undefined;
    if (eventName === undefined) problems.push(`${where}: frame for ${String(type)} has no event: line`);
    else if (eventName !== type) problems.push(`${where}: event: ${eventName} differs from JSON type ${String(type)}`);
    events.push(parsed);
  }

  return { events, sawDone, problems };
}

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);

// `text` accumulates the way the openai client does it: the part's initial text, then every delta.
interface PartState {
  type: string;
  text: string;
  textDone: boolean;
  done: boolean;
}
interface ItemState {
  id: string;
  type: string;
  name: string | undefined;
  parts: PartState[];
  summaries: PartState[];
  args: string;
  argDeltas: number;
  argsDone: boolean;
  done: boolean;
}

/** Human-readable violations of the streaming contract (§2.1–2.4); empty means the stream is fine. */
export function checkStream(events: unknown[]): string[] {
  const out: string[] = [];
  if (events.length === 0) return ['stream has no events'];

  const parsed: (StreamEvent | undefined)[] = events.map((raw, i) => {
    const result = streamEventSchema.safeParse(raw);
    if (result.success) return result.data;
    out.push(...formatIssues(result.error, `event #${i} (${describeType(raw)}) `));
    return undefined;
  });

  // Sequence numbers are checked on the raw values so one invalid event does not hide a gap.
  events.forEach((raw, i) => {
    const seq = (raw as { sequence_number?: unknown } | null)?.sequence_number;
    if (seq !== i) out.push(`event #${i} (${describeType(raw)}): sequence_number ${String(seq)}, expected ${i}`);
  });

  const firstType = describeType(events[0]);
  if (firstType !== 'response.created') out.push(`first event is ${firstType}, expected response.created`);
  const lastType = describeType(events[events.length - 1]);
  if (!TERMINAL.has(lastType)) out.push(`last event is ${lastType}, expected a terminal response.* event`);

  const items: ItemState[] = [];
  const doneIds: string[] = [];
  let responseId: string | undefined;

  parsed.forEach((ev, i) => {
    if (!ev) return;
    const at = `event #${i} (${ev.type})`;
    const bad = (msg: string) => out.push(`${at}: ${msg}`);

    if ('response' in ev) {
      responseId ??= ev.response.id;
      if (ev.response.id !== responseId) bad(`response.id ${ev.response.id} differs from ${responseId}`);
      const want = ev.type.slice('response.'.length);
      if (TERMINAL.has(ev.type) && ev.response.status !== want) bad(`response.status is ${ev.response.status}`);
      if (TERMINAL.has(ev.type) && i !== events.length - 1) bad('terminal event is not the last event');
      const ids = ev.response.output.map((item) => item.id);
      if (TERMINAL.has(ev.type) && ids.join('\n') !== doneIds.join('\n')) {
        bad(`response.output ids [${ids.join(', ')}] differ from output_item.done order [${doneIds.join(', ')}]`);
      }
      return;
    }
    if (ev.type === 'error') {
      const next = i + 1 < events.length ? describeType(events[i + 1]) : 'end of stream';
      if (next !== 'response.failed') bad(`error event followed by ${next}, expected response.failed`);
      return;
    }
    if (ev.type === 'response.output_item.added') {
      if (ev.output_index !== items.length) bad(`output_index ${ev.output_index}, expected ${items.length}`);
      const it = ev.item;
      if (items.some((s) => s.id === it.id)) bad(`duplicate item id ${it.id}`);
      if ('status' in it && it.status !== 'in_progress') bad(`added item has status ${it.status}`);
      if (it.type === 'message' && it.content.length > 0) bad('added message must have content: []');
      if (it.type === 'function_call' && it.arguments !== '') bad('added function_call must have arguments ""');
      const name = it.type === 'function_call' ? it.name : undefined;
      items.push({
        id: it.id,
        type: it.type,
        name,
        parts: [],
        summaries: [],
        args: '',
        argDeltas: 0,
        argsDone: false,
        done: false,
      });
      return;
    }

    // Everything below targets an announced, still-open item.
    const item = items[ev.output_index];
    if (!item) return void bad(`output_index ${ev.output_index} was never announced by output_item.added`);
    if ('item_id' in ev && ev.item_id !== item.id) bad(`item_id ${ev.item_id} does not match ${item.id}`);
    if (item.done) return void bad(`item ${item.id} is already done`);

    switch (ev.type) {
      case 'response.output_item.done': {
        const it = ev.item;
        if (it.id !== item.id || it.type !== item.type)
          bad(`item ${it.type}/${it.id} differs from added ${item.type}/${item.id}`);
        const allowed = lastType === 'response.incomplete' ? ['completed', 'incomplete'] : ['completed'];
        if ('status' in it && !allowed.includes(it.status)) bad(`done item has status ${it.status}`);
        if (it.type === 'function_call') {
          if (!item.argsDone) bad('function_call done before function_call_arguments.done');
          if (it.arguments !== item.args) bad('item.arguments differs from the streamed deltas');
        }
        if (it.type === 'message') {
          if (item.parts.length === 0) bad('message item streamed no content_part.added');
          if (item.parts.some((p) => !p.done)) bad('message done while a content part is still open');
          if (it.content.length !== item.parts.length)
            bad(`content has ${it.content.length} parts, ${item.parts.length} were streamed`);
          it.content.forEach((part, k) => {
            const text = part.type === 'refusal' ? part.refusal : 'text' in part ? part.text : undefined;
            if (text !== undefined && text !== item.parts[k]?.text)
              bad(`content[${k}] text differs from the streamed deltas`);
          });
        }
        item.done = true;
        doneIds.push(item.id);
        return;
      }
      case 'response.function_call_arguments.delta':
      case 'response.function_call_arguments.done': {
        if (item.type !== 'function_call') return void bad(`targets a ${item.type} item`);
        if (item.argsDone) return void bad('arguments already done');
        if (ev.type === 'response.function_call_arguments.delta') {
          item.args += ev.delta;
          item.argDeltas += 1;
          return;
        }
        if (item.argDeltas === 0) bad('no function_call_arguments.delta before .done');
        if (ev.arguments !== item.args) bad('arguments differ from the concatenated deltas');
        if (ev.name !== undefined && ev.name !== item.name) bad(`name ${ev.name} differs from ${String(item.name)}`);
        item.argsDone = true;
        return;
      }
      case 'response.reasoning_summary_part.added':
      case 'response.reasoning_summary_part.done':
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_summary_text.done':
        return void trackPart(item.summaries, ev.summary_index, 'summary_index', ev, bad);
      default:
        if (item.type === 'function_call') return void bad('content events cannot target a function_call');
        return void trackPart(item.parts, ev.content_index, 'content_index', ev, bad);
    }
  });

  if (TERMINAL.has(lastType) && lastType !== 'response.failed') {
    for (const item of items) if (!item.done) out.push(`item ${item.id} never got output_item.done`);
  }
  return out;
}

// A delta family must write into its own kind of part: the openai client appends blindly.
const PART_FOR_FAMILY: Record<string, string> = {
  'response.output_text': 'output_text',
  'response.refusal': 'refusal',
  'response.reasoning': 'reasoning_text',
  'response.reasoning_summary_text': 'summary_text',
};
type PartEvent = Extract<StreamEvent, { content_index: number } | { summary_index: number }>;

/** Content parts and reasoning summary parts follow the same added → delta* → done → part.done cycle. */
function trackPart(parts: PartState[], index: number, label: string, ev: PartEvent, bad: (m: string) => void): void {
  const partText = 'part' in ev ? (ev.part.type === 'refusal' ? ev.part.refusal : ev.part.text) : '';
  if ('part' in ev && ev.type.endsWith('.added')) {
    if (index !== parts.length) bad(`${label} ${index}, expected ${parts.length}`);
    parts[index] = { type: ev.part.type, text: partText, textDone: false, done: false };
    return;
  }
  const part = parts[index];
  if (!part) return bad(`${label} ${index} was never announced by a part.added event`);
  if (part.done) return bad(`${label} ${index} is already done`);
  if ('part' in ev) {
    if (!part.textDone) bad(`part done before its text/refusal .done event`);
    if (partText !== part.text) bad('part text differs from the concatenated deltas');
    part.done = true;
    return;
  }
  if (ev.type === 'response.output_text.annotation.added') {
    if (part.type !== 'output_text') bad(`annotation targets a ${part.type} part`);
    return;
  }
  const family = ev.type.replace(/\.(delta|done)$/, '');
  if (PART_FOR_FAMILY[family] !== part.type) return bad(`targets a ${part.type} part`);
  if (part.textDone) return bad(`${label} ${index} text already done`);
  if ('delta' in ev) {
    part.text += ev.delta;
    return;
  }
  const full = 'refusal' in ev ? ev.refusal : 'text' in ev ? ev.text : '';
  if (full !== part.text) bad('final text differs from the concatenated deltas');
  part.textDone = true;
}

function describeType(raw: unknown): string {
  const type = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : '<no type>';
}
