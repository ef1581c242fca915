/**
 * Our own mirror of the Open Responses compliance suite's HTTP tests (shared/reference/open-responses.md
 * §4.3 and §4.5), written from the spec, not from upstream code. Each `it` carries the suite's test
 * id. Like the suite, the requests are raw `fetch` calls with `Authorization: Bearer <key>` against
 * `<base>/v1/responses`, with the model `scripted:auto` (§4.4 behaviour). Every JSON response is
 * checked against the contract schema, and every stream is read chunk by chunk, the way the suite's
 * fragile parser sees it, before its events are checked against the streaming contract.
 *
 * The second block pins SSE details the suite does not check but the spec (§2) and the `openai`
 * client need.
 */
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { fireTogether } from '../helpers/fire-together.ts';
import { checkResponse, checkStream, outputItemSchema, parseSseLikeSuite } from '../helpers/open-responses-contract.ts';
import { flakyAgent, testPrograms, weatherTool } from '../helpers/test-agents.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

const MODEL = 'scripted:auto';

type Json = Record<string, any>;

/** The suite's weather tool: `get_weather(location)`, without `strict` (the response must echo null). */
const getWeather = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } },
    required: ['location'],
  },
};

/** A raw HTTP client shaped like the suite's: base URL ending in /v1, bearer key, JSON bodies. */
class SuiteClient {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  private send(path: string, body: unknown, method = 'POST'): Promise<Response> {
    return fetch(`${this.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  async json(path: string, body?: unknown, method = 'POST'): Promise<{ status: number; body: Json }> {
    const response = await this.send(path, body, method);
    const text = await response.text();
    let parsed: Json;
    try {
      parsed = JSON.parse(text) as Json;
    } catch {
      throw new Error(`${method} ${path}: HTTP ${response.status}, body is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: response.status, body: parsed };
  }

  /** POST /responses, non-streaming: HTTP 200 and a schema-valid ResponseResource, or the test fails here. */
  async create(body: Json): Promise<Json> {
    const { status, body: resource } = await this.json('/responses', body);
    expect(status, JSON.stringify(resource)).toBe(200);
    expect(checkResponse(resource)).toEqual([]);
    return resource;
  }

  async get(id: string): Promise<Json> {
    const { status, body } = await this.json(`/responses/${id}`, undefined, 'GET');
    expect(status, JSON.stringify(body)).toBe(200);
    return body;
  }

  /** POST /responses with stream:true, the body read as the network delivers it: one decoded string per chunk. */
  async stream(body: Json): Promise<{ status: number; contentType: string; chunks: string[] }> {
    const response = await this.send('/responses', { ...body, stream: true });
    const chunks: string[] = [];
    if (!response.body) throw new Error('streaming response has no body');
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text !== '') chunks.push(text);
    }
    const rest = decoder.decode();
    if (rest !== '') chunks.push(rest);
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', chunks };
  }

  /**
   * A stream that passes everything the suite checks and more: SSE content type, framing as its
   * per-chunk parser sees it, a `[DONE]` terminator, and the event contract. Returns the events and
   * the response of the terminal event.
   */
  async validStream(body: Json): Promise<{ events: Json[]; final: Json; terminal: string }> {
    const { status, contentType, chunks } = await this.stream(body);
    expect(status, chunks.join('').slice(0, 500)).toBe(200);
    expect(contentType.startsWith('text/event-stream'), contentType).toBe(true);
    const { events, sawDone, problems } = parseSseLikeSuite(chunks);
    expect(problems).toEqual([]);
    expect(sawDone).toBe(true);
    expect(checkStream(events)).toEqual([]);
    const typed = events as Json[];
    const last = typed[typed.length - 1];
    if (!last || !('response' in last)) throw new Error('stream has no terminal response event');
    expect(checkResponse(last['response'])).toEqual([]);
    return { events: typed, final: last['response'] as Json, terminal: String(last['type']) };
  }
}

// ---------------------------------------------------------------------------------------------
// Fixtures: a real 1×1 PNG and a minimal valid PDF, built here rather than pasted as opaque blobs.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 1×1 opaque red RGB PNG: signature, IHDR, one zlib-compressed scanline, IEND. */
function tinyPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // colour type: truecolour
  // compression, filter and interlace methods stay 0
  const scanline = Buffer.from([0, 0xff, 0x00, 0x00]); // filter byte 0, then R G B
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(scanline)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A one-page PDF saying "Hello from Baton", with a correct xref table (byte offsets computed). */
function minimalPdf(): Buffer {
  const content = 'BT /F1 18 Tf 20 100 Td (Hello from Baton) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(pdf, 'latin1');
  // Each xref entry is exactly 20 bytes: 10-digit offset, 5-digit generation, type, and a 2-byte EOL.
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

// ---------------------------------------------------------------------------------------------
// The suite's tests, one function per id, so they can run one by one and all at once.

const compactionResponseSchema = z.object({
  id: z.string(),
  object: z.literal('response.compaction'),
  output: z.array(outputItemSchema),
  created_at: z.int(),
  usage: z.object({
    input_tokens: z.int(),
    output_tokens: z.int(),
    total_tokens: z.int(),
    input_tokens_details: z.object({ cached_tokens: z.int() }),
    output_tokens_details: z.object({ reasoning_tokens: z.int() }),
  }),
});

function expectCompletedWithOutput(resource: Json): void {
  expect(resource['status']).toBe('completed');
  expect(resource['output'].length).toBeGreaterThan(0);
}

function functionCalls(resource: Json): Json[] {
  return (resource['output'] as Json[]).filter((item) => item['type'] === 'function_call');
}

/** A ResponseResource as the spec shapes it, carrying assistant messages with both `phase` values. */
function phaseFixture(): Json {
  const message = (id: string, phase: string, text: string) => ({
    type: 'message',
    id,
    status: 'completed',
    role: 'assistant',
    phase,
    content: [{ type: 'output_text', text, annotations: [] }],
  });
  return {
    id: 'resp_phase_fixture',
    object: 'response',
    created_at: 1_767_225_600,
    completed_at: 1_767_225_601,
    status: 'completed',
    incomplete_details: null,
    model: MODEL,
    previous_response_id: null,
    instructions: null,
    output: [message('msg_commentary', 'commentary', 'Let me check that.'), message('msg_final', 'final_answer', 'It is sunny.')],
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
    usage: { input_tokens: 10, output_tokens: 8, total_tokens: 18, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    max_output_tokens: null,
    max_tool_calls: null,
    store: true,
    background: false,
    service_tier: 'default',
    metadata: {},
    safety_identifier: null,
    prompt_cache_key: null,
  };
}

interface SuiteCase {
  id: string;
  title: string;
  run(client: SuiteClient): Promise<void>;
}

const SUITE: SuiteCase[] = [
  // §4.3: the 2026-07-15 main snapshot (HTTP tests only; the WebSocket ones live in websocket.test.ts).
  {
    id: 'basic-response',
    title: 'a user message with string content completes with non-empty output',
    async run(client) {
      const resource = await client.create({ model: MODEL, input: [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }] });
      expectCompletedWithOutput(resource);
      expect(resource['model']).toBe(MODEL);
    },
  },
  {
    id: 'assistant-phase',
    title: 'assistant history items carrying phase (commentary, final_answer) are accepted',
    async run(client) {
      const resource = await client.create({
        model: MODEL,
        input: [
          { type: 'message', role: 'user', content: 'What is the capital of France?' },
          { type: 'message', role: 'assistant', phase: 'commentary', content: [{ type: 'output_text', text: 'Let me think about that.' }] },
          { type: 'message', role: 'assistant', phase: 'final_answer', content: 'The capital of France is Paris.' },
          { type: 'message', role: 'user', content: 'And of Germany?' },
        ],
      });
      expectCompletedWithOutput(resource);
    },
  },
  {
    id: 'response-output-phase-schema',
    title: 'a response whose messages carry phase validates against the schema (no request)',
    async run() {
      const fixture = phaseFixture();
      expect(checkResponse(fixture)).toEqual([]);
      // And the schema really looks at phase: an unknown value is rejected.
      const broken = { ...fixture, output: [{ ...(fixture['output'] as Json[])[0], phase: 'draft' }] };
      expect(checkResponse(broken).some((issue) => issue.includes('phase'))).toBe(true);
    },
  },
  {
    id: 'streaming-response',
    title: 'stream:true yields valid SSE events ending in a completed response',
    async run(client) {
      const { events, final, terminal } = await client.validStream({ model: MODEL, input: [{ type: 'message', role: 'user', content: 'Count from 1 to 5.' }] });
      expect(events.length).toBeGreaterThan(0);
      expect(terminal).toBe('response.completed');
      expect(final['status']).toBe('completed');
    },
  },
  {
    id: 'system-prompt',
    title: 'a system message before the user message is accepted',
    async run(client) {
      const resource = await client.create({
        model: MODEL,
        input: [
          { type: 'message', role: 'system', content: 'You are a pirate. Always respond in pirate speak.' },
          { type: 'message', role: 'user', content: 'Say hello.' },
        ],
      });
      expectCompletedWithOutput(resource);
    },
  },
  {
    id: 'tool-calling',
    title: 'with a function tool and tool_choice unset, the model calls it',
    async run(client) {
      const resource = await client.create({
        model: MODEL,
        input: [{ type: 'message', role: 'user', content: "What's the weather like in San Francisco?" }],
        tools: [getWeather],
      });
      expect(resource['output'].length).toBeGreaterThan(0);
      const calls = functionCalls(resource);
      expect(calls.length).toBeGreaterThan(0);
      expect(calls[0]?.['name']).toBe('get_weather');
      expect(() => JSON.parse(String(calls[0]?.['arguments']))).not.toThrow();
      // Not checked by the suite; our wire format (§5.3): a paused run is a completed response.
      expect(resource['status']).toBe('completed');
      // The tool is echoed with the nullable keys the client left out.
      expect(resource['tools']).toEqual([{ ...getWeather, strict: null }]);
    },
  },
  {
    id: 'image-input',
    title: 'input_text plus input_image with a base64 PNG data URL',
    async run(client) {
      const resource = await client.create({
        model: MODEL,
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'What color is this image?' },
              { type: 'input_image', image_url: `data:image/png;base64,${tinyPng().toString('base64')}` },
            ],
          },
        ],
      });
      expectCompletedWithOutput(resource);
    },
  },
  {
    id: 'multi-turn',
    title: 'user / assistant / user string messages',
    async run(client) {
      const resource = await client.create({
        model: MODEL,
        input: [
          { type: 'message', role: 'user', content: 'My name is Alice.' },
          { type: 'message', role: 'assistant', content: 'Hello Alice! How can I help you today?' },
          { type: 'message', role: 'user', content: 'What is my name?' },
        ],
      });
      expectCompletedWithOutput(resource);
    },
  },
  {
    id: 'compact-response',
    title: 'POST /responses/compact returns a response.compaction with a compaction item',
    async run(client) {
      const { status, body } = await client.json('/responses/compact', {
        model: MODEL,
        prompt_cache_key: 'compliance-compact',
        input: [
          { type: 'message', role: 'user', content: 'Remember that my favourite colour is blue.' },
          { type: 'message', role: 'assistant', content: 'Noted: your favourite colour is blue.' },
        ],
      });
      expect(status, JSON.stringify(body)).toBe(200);
      const parsed = compactionResponseSchema.safeParse(body);
      expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
      expect(body['output'].length).toBeGreaterThan(0);
      expect((body['output'] as Json[]).some((item) => item['type'] === 'compaction')).toBe(true);
    },
  },
  {
    id: 'compact-missing-model',
    title: 'POST /responses/compact without model is rejected with 400 or 422',
    async run(client) {
      const { status } = await client.json('/responses/compact', { input: [{ type: 'message', role: 'user', content: 'Hello.' }] });
      expect([400, 422]).toContain(status);
    },
  },

  // §4.5: tests in other indexed revisions of the suite.
  {
    id: 'tool-calling-streaming',
    title: 'a streamed tool call: output_item.added, arguments delta(s) and done, output_item.done',
    async run(client) {
      const { events, final, terminal } = await client.validStream({
        model: MODEL,
        input: [{ type: 'message', role: 'user', content: "What's the weather like in San Francisco?" }],
        tools: [getWeather],
      });
      const isCall = (event: Json) => event['item']?.['type'] === 'function_call';
      expect(events.some((event) => event['type'] === 'response.output_item.added' && isCall(event))).toBe(true);
      expect(events.some((event) => event['type'] === 'response.function_call_arguments.delta')).toBe(true);
      expect(events.some((event) => event['type'] === 'response.function_call_arguments.done')).toBe(true);
      expect(events.some((event) => event['type'] === 'response.output_item.done' && isCall(event))).toBe(true);
      expect(terminal).toBe('response.completed');
      expect(functionCalls(final).length).toBeGreaterThan(0);
    },
  },
  {
    id: 'function-call-roundtrip',
    title: 'forced call, then previous_response_id + function_call_output completes with output',
    async run(client) {
      const first = await client.create({
        model: MODEL,
        input: [{ type: 'message', role: 'user', content: "What's the weather like in San Francisco?" }],
        tools: [getWeather],
        tool_choice: { type: 'function', name: 'get_weather' },
      });
      const call = functionCalls(first)[0];
      if (!call) throw new Error(`expected a function_call in ${JSON.stringify(first['output'])}`);
      expect(call['name']).toBe('get_weather');
      expect(first['tool_choice']).toEqual({ type: 'function', name: 'get_weather' });

      const second = await client.create({
        model: MODEL,
        previous_response_id: first['id'],
        input: [{ type: 'function_call_output', call_id: call['call_id'], output: '64 degrees and clear' }],
      });
      expectCompletedWithOutput(second);
      expect(second['id']).not.toBe(first['id']);
      expect(second['previous_response_id']).toBe(first['id']);
    },
  },
  {
    id: 'previous-response-id',
    title: 'two plain turns chained by previous_response_id',
    async run(client) {
      const first = await client.create({ model: MODEL, input: [{ type: 'message', role: 'user', content: 'My favourite number is 7.' }] });
      expectCompletedWithOutput(first);
      const second = await client.create({
        model: MODEL,
        previous_response_id: first['id'],
        input: [{ type: 'message', role: 'user', content: 'What is my favourite number?' }],
      });
      expectCompletedWithOutput(second);
      expect(second['previous_response_id']).toBe(first['id']);
    },
  },
  {
    id: 'file-input',
    title: 'input_file with filename and base64 PDF file_data',
    async run(client) {
      const pdf = minimalPdf().toString('base64');
      for (const fileData of [`data:application/pdf;base64,${pdf}`, pdf]) {
        const resource = await client.create({
          model: MODEL,
          input: [
            {
              type: 'message',
              role: 'user',
              content: [
                { type: 'input_text', text: 'What does this document say?' },
                { type: 'input_file', filename: 'hello.pdf', file_data: fileData },
              ],
            },
          ],
        });
        expectCompletedWithOutput(resource);
      }
    },
  },
];

describe('Open Responses compliance suite (HTTP tests)', () => {
  let server: TestBaton;
  let client: SuiteClient;
  beforeAll(async () => {
    server = await startTestBaton();
    client = new SuiteClient(`${server.url}/v1`, server.key);
  });
  afterAll(async () => server.close());

  for (const test of SUITE) {
    it(`${test.id}: ${test.title}`, () => test.run(client));
  }

  it('the fixtures are real: the PNG and PDF have valid structure', () => {
    const png = tinyPng();
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    expect(png.readUInt32BE(png.length - 4)).toBe(0xae426082); // the well-known CRC of an empty IEND
    const pdf = minimalPdf().toString('latin1');
    expect(pdf.startsWith('%PDF-1.4\n')).toBe(true);
    const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(pdf)?.[1]);
    expect(pdf.slice(startxref, startxref + 4)).toBe('xref');
    const offsets = [...pdf.matchAll(/^(\d{10}) 00000 n $/gm)].map((match) => Number(match[1]));
    expect(offsets).toHaveLength(5);
    offsets.forEach((offset, index) => expect(pdf.slice(offset).startsWith(`${index + 1} 0 obj`)).toBe(true));
  });

  it('all suite tests at once, streaming and not: the suite runs every test concurrently (Promise.all)', async () => {
    const results = await fireTogether(SUITE.length, async (index) => {
      const test = SUITE[index];
      if (!test) throw new Error('no test');
      try {
        await test.run(client);
        return null;
      } catch (error) {
        return `${test.id}: ${(error as Error).message}`;
      }
    });
    expect(results.filter((failure) => failure !== null)).toEqual([]);
  });
});

describe('SSE details', () => {
  /** Fails the model on the turn that follows a tool result: the failure lands mid-conversation. */
  const failingPrograms = {
    ...testPrograms,
    breaks: {
      rules: [
        { when: { user: 'weather' }, call: { tool: 'get_weather', arguments: { city: 'Paris' } } },
        { when: { tool_result: true }, fail: { status: 500, message: 'model crashed after the tool result' } },
        { say: 'fine' },
      ],
    },
  };
  const breakingAgent = { name: 'breaks-after-tool', model: 'scripted:breaks', tools: [weatherTool] };

  let server: TestBaton;
  let client: SuiteClient;
  beforeAll(async () => {
    server = await startTestBaton({ scripted: failingPrograms, agents: [DEMO_AGENT, flakyAgent, breakingAgent], maxModelRetries: 0 });
    client = new SuiteClient(`${server.url}/v1`, server.key);
  });
  afterAll(async () => server.close());

  it('sequence_number starts at 0 and grows by exactly 1, for text and for tool-call streams', async () => {
    const text = await client.validStream({ model: MODEL, input: 'Tell me a short story.' });
    const tool = await client.validStream({ model: MODEL, input: 'What is the weather in Paris?', tools: [getWeather] });
    for (const { events } of [text, tool]) {
      expect(events.map((event) => event['sequence_number'])).toEqual(events.map((_, index) => index));
    }
  });

  it('the first event is response.created with an in_progress, empty, unfinished response', async () => {
    const { events } = await client.validStream({ model: MODEL, input: 'Hello there.' });
    const first = events[0];
    expect(first?.['type']).toBe('response.created');
    const response = first?.['response'] as Json;
    expect(checkResponse(response)).toEqual([]);
    expect(response['status']).toBe('in_progress');
    expect(response['output']).toEqual([]);
    expect(response['usage']).toBeNull();
    expect(response['completed_at']).toBeNull();
    expect(events[1]?.['type']).toBe('response.in_progress');
  });

  it('parallel function calls stream as two complete function_call items at output_index 0 and 1', async () => {
    const { events, final, terminal } = await client.validStream({
      model: MODEL,
      input: 'What is the weather in Paris and what is the weather in Tokyo?',
      tools: [getWeather],
    });
    expect(terminal).toBe('response.completed');
    const calls = functionCalls(final);
    expect(calls).toHaveLength(2);
    for (const index of [0, 1]) {
      const own = events.filter((event) => event['output_index'] === index);
      const types = own.map((event) => String(event['type']));
      expect(types[0]).toBe('response.output_item.added');
      expect(own[0]?.['item']?.['type']).toBe('function_call');
      expect(own[0]?.['item']?.['name']).toBe('get_weather');
      const deltas = types.filter((type) => type === 'response.function_call_arguments.delta').length;
      expect(deltas).toBeGreaterThanOrEqual(1);
      expect(types).toEqual([
        'response.output_item.added',
        ...Array.from({ length: deltas }, () => 'response.function_call_arguments.delta'),
        'response.function_call_arguments.done',
        'response.output_item.done',
      ]);
      const argsDone = own.find((event) => event['type'] === 'response.function_call_arguments.done');
      expect(argsDone?.['name']).toBe('get_weather');
      expect(argsDone?.['item_id']).toBe(own[0]?.['item']?.['id']);
      const itemDone = own[own.length - 1];
      expect(itemDone?.['item']).toEqual(calls[index]);
      expect(itemDone?.['item']?.['status']).toBe('completed');
      expect(() => JSON.parse(String(argsDone?.['arguments']))).not.toThrow();
    }
    expect(calls[0]?.['call_id']).not.toBe(calls[1]?.['call_id']);
  });

  it('the response of response.completed equals what GET /v1/responses/{id} returns afterwards', async () => {
    const text = await client.validStream({ model: MODEL, input: 'Say something nice.' });
    const tool = await client.validStream({ model: MODEL, input: 'What is the weather in Paris?', tools: [getWeather] });
    for (const { final, terminal } of [text, tool]) {
      expect(terminal).toBe('response.completed');
      expect(await client.get(String(final['id']))).toEqual(final);
    }
  });

  it('a model failure on the first model call ends the stream with error, then response.failed', async () => {
    const { events, final, terminal } = await client.validStream({ model: 'flaky', input: 'flaky please' });
    expect(events[0]?.['type']).toBe('response.created');
    expect(terminal).toBe('response.failed');
    expect(events[events.length - 2]?.['type']).toBe('error');
    const error = events[events.length - 2]?.['error'] as Json;
    expect(typeof error['message']).toBe('string');
    expect(final['status']).toBe('failed');
    expect(final['error']).toEqual({ code: expect.any(String), message: expect.any(String) });
  });

  it('a model failure mid-conversation (after a tool result) ends the stream with error, then response.failed', async () => {
    const first = await client.create({ model: 'breaks-after-tool', input: 'What is the weather in Paris?' });
    const call = functionCalls(first)[0];
    if (!call) throw new Error(`expected a function_call in ${JSON.stringify(first['output'])}`);
    const { events, final, terminal } = await client.validStream({
      model: 'breaks-after-tool',
      previous_response_id: first['id'],
      input: [{ type: 'function_call_output', call_id: call['call_id'], output: '{"temperature":18}' }],
    });
    expect(terminal).toBe('response.failed');
    expect(events[events.length - 2]?.['type']).toBe('error');
    expect(final['status']).toBe('failed');
    expect(final['error']).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(final['previous_response_id']).toBe(first['id']);
  });
});
