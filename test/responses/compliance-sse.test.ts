/**
 * SSE details of the Responses face that the Open Responses compliance suite does not check but the
 * spec (shared/reference/open-responses.md §2) and the `openai` client need: event numbering, the
 * first events, parallel function-call streams, the terminal response matching GET, and model
 * failures ending the stream. Requests go through the compliance mirror's raw client (see
 * compliance.test.ts), so every stream is read chunk by chunk and checked against the contract.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { checkResponse } from '../helpers/open-responses-contract.ts';
import { functionCalls, getWeather, type Json, MODEL, SuiteClient } from '../helpers/responses-suite-client.ts';
import { flakyAgent, testPrograms, weatherTool } from '../helpers/test-agents.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

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
    server = await startTestBaton({
      scripted: failingPrograms,
      agents: [DEMO_AGENT, flakyAgent, breakingAgent],
      maxModelRetries: 0,
    });
    client = new SuiteClient(`${server.url}/v1`, server.key);
  });
  afterAll(async () => server.close());

  it('sequence_number starts at 0 and grows by exactly 1, for text and for tool-call streams', async () => {
    const text = await client.validStream({ model: MODEL, input: 'Tell me a short story.' });
    const tool = await client.validStream({
      model: MODEL,
      input: 'What is the weather in Paris?',
      tools: [getWeather],
    });
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
    const tool = await client.validStream({
      model: MODEL,
      input: 'What is the weather in Paris?',
      tools: [getWeather],
    });
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
