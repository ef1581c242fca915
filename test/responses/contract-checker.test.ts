/**
 * Proves the Open Responses contract checker actually catches what it claims to. Before we trust
 * it against the real `/v1/responses` output, each rule gets a hand-written valid fixture and a
 * copy broken in exactly one way.
 */
import { describe, it, expect } from 'vitest';
import {
  checkResponse,
  checkStream,
  outputItemSchema,
  parseSse,
  parseSseLikeSuite,
  responseResourceSchema,
  sseJsonEvents,
  streamEventSchema,
} from '../helpers/open-responses-contract.ts';

type Obj = Record<string, unknown>;

/** A complete ResponseResource with every required key; tests override what they need. */
function resource(overrides: Obj = {}): Obj {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1_700_000_000,
    completed_at: null,
    status: 'in_progress',
    incomplete_details: null,
    model: 'fake-model',
    previous_response_id: null,
    instructions: null,
    output: [],
    error: null,
    tools: [],
    tool_choice: 'auto',
    truncation: 'disabled',
    parallel_tool_calls: true,
    text: { format: { type: 'text' } },
    top_p: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: 1,
    reasoning: null,
    usage: null,
    max_output_tokens: null,
    max_tool_calls: null,
    store: true,
    background: false,
    service_tier: 'default',
    metadata: {},
    safety_identifier: null,
    prompt_cache_key: null,
    ...overrides,
  };
}

const usage = {
  input_tokens: 5,
  output_tokens: 2,
  total_tokens: 7,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens_details: { reasoning_tokens: 0 },
};
const doneMessage = {
  type: 'message',
  id: 'msg_1',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text: 'Hi there', annotations: [] }],
};
const doneCall = {
  type: 'function_call',
  id: 'fc_1',
  call_id: 'call_1',
  name: 'get_weather',
  arguments: '{"location":"Paris"}',
  status: 'completed',
};

/** Numbers the events 0, 1, 2… so fixtures only spell out what differs. */
function numbered(events: Obj[]): Obj[] {
  return events.map((event, i) => ({ ...event, sequence_number: i }));
}

function textStream(): Obj[] {
  const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
  return numbered([
    { type: 'response.created', response: resource() },
    { type: 'response.in_progress', response: resource() },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...doneMessage, status: 'in_progress', content: [] },
    },
    { type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', ...at, delta: 'Hi ' },
    { type: 'response.output_text.delta', ...at, delta: 'there' },
    { type: 'response.output_text.done', ...at, text: 'Hi there' },
    { type: 'response.content_part.done', ...at, part: doneMessage.content[0] },
    { type: 'response.output_item.done', output_index: 0, item: doneMessage },
    {
      type: 'response.completed',
      response: resource({ status: 'completed', completed_at: 1_700_000_001, output: [doneMessage], usage }),
    },
  ]);
}

function toolStream(): Obj[] {
  const at = { item_id: 'fc_1', output_index: 0 };
  const tools = [{ type: 'function', name: 'get_weather', description: null, parameters: null, strict: null }];
  return numbered([
    { type: 'response.created', response: resource({ tools }) },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...doneCall, status: 'in_progress', arguments: '' },
    },
    { type: 'response.function_call_arguments.delta', ...at, delta: '{"location":' },
    { type: 'response.function_call_arguments.delta', ...at, delta: '"Paris"}' },
    { type: 'response.function_call_arguments.done', ...at, arguments: doneCall.arguments, name: 'get_weather' },
    { type: 'response.output_item.done', output_index: 0, item: doneCall },
    {
      type: 'response.completed',
      response: resource({ tools, status: 'completed', completed_at: 1_700_000_001, output: [doneCall], usage }),
    },
  ]);
}

/** One SSE frame exactly as the server should write it: a single write per frame. */
function frame(event: Obj): string {
  return `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Replaces the event at `index` (keeping its sequence number unless the patch sets one). */
function patched(events: Obj[], index: number, patch: Obj): Obj[] {
  return events.map((event, i) => (i === index ? { ...event, ...patch } : event));
}

describe('schemas', () => {
  it('accept the valid fixtures', () => {
    expect(checkResponse(resource())).toEqual([]);
    expect(
      responseResourceSchema.safeParse(
        resource({ tool_choice: { type: 'allowed_tools', tools: [{ type: 'function', name: 'a' }], mode: 'auto' } }),
      ).success,
    ).toBe(true);
    expect(outputItemSchema.safeParse(doneCall).success).toBe(true);
    expect(outputItemSchema.safeParse({ type: 'reasoning', id: 'rs_1', summary: [] }).success).toBe(true);
    for (const event of [...textStream(), ...toolStream()])
      expect(streamEventSchema.safeParse(event).success).toBe(true);
  });

  it('reports a tool echoed without strict (required-but-nullable key)', () => {
    const tools = [{ type: 'function', name: 'get_weather', description: null, parameters: null }];
    const problems = checkResponse(resource({ tools }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^tools\.0\.strict: /);
  });

  it('reports every omitted key, even the `any`-typed metadata', () => {
    const { metadata: _m, prompt_cache_key: _p, ...rest } = resource();
    const problems = checkResponse(rest);
    expect(problems.some((p) => p.startsWith('metadata:'))).toBe(true);
    expect(problems.some((p) => p.startsWith('prompt_cache_key:'))).toBe(true);
  });

  it('rejects parsed-object function arguments and allowed_tools without mode', () => {
    expect(outputItemSchema.safeParse({ ...doneCall, arguments: { location: 'Paris' } }).success).toBe(false);
    const choice = { type: 'allowed_tools', tools: [{ type: 'function', name: 'a' }] };
    expect(checkResponse(resource({ tool_choice: choice })).length).toBeGreaterThan(0);
  });

  it('rejects the flat OpenAI error event and accepts the nested one', () => {
    const flat = { type: 'error', sequence_number: 3, code: 'x', message: 'boom', param: null };
    const nested = {
      type: 'error',
      sequence_number: 3,
      error: { type: 'server_error', code: null, message: 'boom', param: null },
    };
    expect(streamEventSchema.safeParse(flat).success).toBe(false);
    expect(streamEventSchema.safeParse(nested).success).toBe(true);
  });

  it('rejects a slug-prefixed vendor event (the suite validates against the 24 standard types)', () => {
    expect(streamEventSchema.safeParse({ type: 'acme:trace', sequence_number: 0 }).success).toBe(false);
  });
});

describe('checkStream', () => {
  it('accepts a valid minimal text stream and a valid function-call stream', () => {
    expect(checkStream(textStream())).toEqual([]);
    expect(checkStream(toolStream())).toEqual([]);
  });

  it('reports a stream that does not start with response.created', () => {
    const problems = checkStream(numbered(textStream().slice(1)));
    expect(problems).toContain('first event is response.in_progress, expected response.created');
  });

  it('reports a sequence_number gap', () => {
    const problems = checkStream(patched(textStream(), 5, { sequence_number: 6 }));
    expect(problems.some((p) => p.includes('sequence_number 6, expected 5'))).toBe(true);
  });

  it('reports a sequence that starts at 1', () => {
    const events = textStream().map((e, i) => ({ ...e, sequence_number: i + 1 }));
    expect(checkStream(events).some((p) => p.includes('sequence_number 1, expected 0'))).toBe(true);
  });

  it('reports a delta for an output_index that was never announced', () => {
    const problems = checkStream(patched(textStream(), 4, { output_index: 1 }));
    expect(problems.some((p) => p.includes('output_index 1 was never announced'))).toBe(true);
  });

  it('reports a delta for a content_index that was never announced', () => {
    const problems = checkStream(patched(textStream(), 4, { content_index: 1 }));
    expect(problems.some((p) => p.includes('content_index 1 was never announced'))).toBe(true);
  });

  it('reports a schema failure inside a lifecycle snapshot (tools[].strict missing)', () => {
    const tools = [{ type: 'function', name: 'get_weather', description: null, parameters: null }];
    const problems = checkStream(patched(textStream(), 0, { response: resource({ tools }) }));
    expect(problems.some((p) => p.startsWith('event #0 (response.created) response.tools.0.strict:'))).toBe(true);
  });

  it('reports a stream with no terminal event', () => {
    expect(checkStream(textStream().slice(0, -1))).toContain(
      'last event is response.output_item.done, expected a terminal response.* event',
    );
  });

  it('reports text.done that does not equal the concatenated deltas', () => {
    const problems = checkStream(patched(textStream(), 6, { text: 'Hi  there' }));
    expect(problems.some((p) => p.includes('final text differs from the concatenated deltas'))).toBe(true);
  });

  it('reports output_item.done before content_part.done', () => {
    const events = textStream();
    const reordered = numbered([...events.slice(0, 7), events[8]!, events[7]!, events[9]!]);
    const problems = checkStream(reordered);
    expect(problems.some((p) => p.includes('content part is still open'))).toBe(true);
  });

  it('reports a text delta aimed at a refusal part', () => {
    const part = { type: 'refusal', refusal: '' };
    const problems = checkStream(patched(textStream(), 3, { part }));
    expect(problems.some((p) => p.includes('targets a refusal part'))).toBe(true);
  });

  it('reports a function call with no argument deltas and a wrong final status', () => {
    const events = toolStream();
    const noDeltas = numbered([...events.slice(0, 2), ...events.slice(4)]);
    expect(checkStream(noDeltas)).toContain(
      'event #2 (response.function_call_arguments.done): no function_call_arguments.delta before .done',
    );
    const inProgress = patched(events, 5, { item: { ...doneCall, status: 'in_progress' } });
    expect(checkStream(inProgress)).toContain('event #5 (response.output_item.done): done item has status in_progress');
  });

  it('reports added function_call with non-empty arguments and mismatched final arguments', () => {
    const events = patched(toolStream(), 1, { item: { ...doneCall, status: 'in_progress' } });
    expect(checkStream(events).some((p) => p.includes('arguments ""'))).toBe(true);
    const wrongDone = patched(toolStream(), 4, { arguments: '{}' });
    expect(checkStream(wrongDone).some((p) => p.includes('differ from the concatenated deltas'))).toBe(true);
  });

  it('reports a terminal output whose ids differ from the output_item.done order', () => {
    const events = toolStream();
    const last = events[events.length - 1]!;
    const response = { ...(last.response as Obj), output: [{ ...doneCall, id: 'fc_other' }] };
    const problems = checkStream(patched(events, events.length - 1, { response }));
    expect(problems.some((p) => p.includes('response.output ids [fc_other]'))).toBe(true);
  });

  it('reports an error event that is not followed by response.failed', () => {
    const events = textStream();
    const error = { type: 'error', error: { type: 'server_error', code: null, message: 'boom', param: null } };
    const withError = numbered([...events.slice(0, 2), error, ...events.slice(2)]);
    expect(checkStream(withError).some((p) => p.includes('expected response.failed'))).toBe(true);

    const failed = {
      type: 'response.failed',
      response: resource({ status: 'failed', error: { code: 'server_error', message: 'boom' } }),
    };
    expect(checkStream(numbered([...events.slice(0, 2), error, failed]))).toEqual([]);
  });
});

describe('parseSseLikeSuite', () => {
  const chunks = () => [...textStream().map(frame), 'data: [DONE]\n\n'];

  it('parses one frame per chunk with no problems', () => {
    const result = parseSseLikeSuite(chunks());
    expect(result.problems).toEqual([]);
    expect(result.sawDone).toBe(true);
    expect(result.events).toEqual(textStream());
    expect(checkStream(result.events)).toEqual([]);
  });

  it('ignores comment heartbeats', () => {
    expect(parseSseLikeSuite([': keepalive\n\n', ...chunks()]).problems).toEqual([]);
  });

  it('reports a CRLF-framed chunk and sees no events in it', () => {
    const crlf = chunks().map((chunk) => chunk.replace(/\n/g, '\r\n'));
    const result = parseSseLikeSuite(crlf);
    expect(result.problems.some((p) => p.includes('CRLF'))).toBe(true);
    expect(result.events).toEqual([]);
  });

  it('drops an event split over two chunks, leaving the stream without a terminal event', () => {
    const all = chunks();
    const terminal = all[all.length - 2]!;
    const cut = terminal.length - 1; // the closing blank line arrives in a later write
    const split = [...all.slice(0, -2), terminal.slice(0, cut), terminal.slice(cut), all[all.length - 1]!];
    const result = parseSseLikeSuite(split);
    expect(result.problems.some((p) => p.includes('event dropped'))).toBe(true);
    expect(result.events).toHaveLength(textStream().length - 1);
    expect(checkStream(result.events).some((p) => p.startsWith('last event is response.output_item.done'))).toBe(true);
  });

  it('reports a frame split mid-JSON', () => {
    const text = frame(textStream()[0]!);
    const result = parseSseLikeSuite([text.slice(0, 40), text.slice(40)]);
    expect(result.events).toEqual([]);
    expect(result.problems.length).toBeGreaterThan(0);
  });

  it('reports id: lines, multi-line data, event/type mismatch, non-JSON data, and content after [DONE]', () => {
    const created = textStream()[0]!;
    const json = JSON.stringify(created);
    const result = parseSseLikeSuite([
      `id: 1\nevent: response.created\ndata: ${json}\n\n`,
      `event: response.created\ndata: {"type":"response.in_progress",\ndata: "sequence_number":1}\n\n`,
      `event: response.in_progress\ndata: ${json}\n\n`,
      'event: response.created\ndata: not json\n\n',
      `data: ${json}\n\n`,
      'data: [DONE]\n\n',
      `event: response.created\ndata: ${json}\n\n`,
    ]);
    const has = (text: string) => result.problems.some((p) => p.includes(text));
    expect(has('id: line')).toBe(true);
    expect(has('multi-line data')).toBe(true);
    expect(has('differs from JSON type')).toBe(true);
    expect(has('non-JSON data')).toBe(true);
    expect(has('no event: line')).toBe(true);
    expect(has('after data: [DONE]')).toBe(true);
    expect(result.sawDone).toBe(true);
  });
});

describe('parseSse', () => {
  it('parses a whole body robustly, whatever the line endings or write boundaries', () => {
    const body = [...textStream().map(frame), 'data: [DONE]\n\n'].join('');
    const frames = parseSse(body.replace(/\n/g, '\r\n'));
    expect(frames).toHaveLength(textStream().length + 1);
    expect(frames[0]?.event).toBe('response.created');
    expect(frames[frames.length - 1]).toEqual({ event: undefined, data: '[DONE]' });
    expect(sseJsonEvents(body)).toEqual(textStream());
  });

  it('joins multi-line data with newlines', () => {
    expect(parseSse('event: x\ndata: a\ndata: b\n\n')).toEqual([{ event: 'x', data: 'a\nb' }]);
  });
});
