/**
 * Our own mirror of the Open Responses compliance suite's HTTP tests (shared/reference/open-responses.md
 * §4.3 and §4.5), written from the spec, not from upstream code. Each `it` carries the suite's test
 * id. Like the suite, the requests are raw `fetch` calls with `Authorization: Bearer <key>` against
 * `<base>/v1/responses`, with the model `scripted:auto` (§4.4 behaviour). Every JSON response is
 * checked against the contract schema, and every stream is read chunk by chunk, the way the suite's
 * fragile parser sees it, before its events are checked against the streaming contract.
 *
 * SSE details the suite does not check but the spec (§2) and the `openai` client need are pinned in
 * compliance-sse.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { minimalPdf, tinyPng } from '../helpers/binary-fixtures.ts';
import { fireTogether } from '../helpers/fire-together.ts';
import { checkResponse, outputItemSchema } from '../helpers/open-responses-contract.ts';
import {
  expectCompletedWithOutput,
  functionCalls,
  getWeather,
  type Json,
  MODEL,
  SuiteClient,
} from '../helpers/responses-suite-client.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

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
    output: [
      message('msg_commentary', 'commentary', 'Let me check that.'),
      message('msg_final', 'final_answer', 'It is sunny.'),
    ],
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
    usage: {
      input_tokens: 10,
      output_tokens: 8,
      total_tokens: 18,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
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
      const resource = await client.create({
        model: MODEL,
        input: [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }],
      });
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
          {
            type: 'message',
            role: 'assistant',
            phase: 'commentary',
            content: [{ type: 'output_text', text: 'Let me think about that.' }],
          },
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
      const { events, final, terminal } = await client.validStream({
        model: MODEL,
        input: [{ type: 'message', role: 'user', content: 'Count from 1 to 5.' }],
      });
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
      const { status } = await client.json('/responses/compact', {
        input: [{ type: 'message', role: 'user', content: 'Hello.' }],
      });
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
      const first = await client.create({
        model: MODEL,
        input: [{ type: 'message', role: 'user', content: 'My favourite number is 7.' }],
      });
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
