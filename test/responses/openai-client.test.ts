import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse, checkStream } from '../helpers/open-responses-contract.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** The seed's `get_weather` declaration, as its examples send it. */
const getWeather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Get current weather for a city',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city'],
  },
  strict: null,
};

/** The official `openai` client (v6) against a real Baton: the seed's Node examples, unchanged in their calls. */
describe('Responses API with the official openai client', () => {
  let server: TestBaton;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startTestBaton();
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
  });
  afterAll(async () => server.close());

  it('returns function_call items, takes function_call_output with previous_response_id, and answers', async () => {
    const first = await client.responses.create({
      model: 'scripted:auto',
      input: 'What is the weather in Paris right now?',
      tools: [getWeather],
    });
    expect(checkResponse(first)).toEqual([]);
    expect(first.status).toBe('completed');
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call item');
    expect(call.name).toBe('get_weather');
    expect(call.call_id).toMatch(/^call_/);
    expect(call.id).toMatch(/^fc_/);
    expect(JSON.parse(call.arguments)).toMatchObject({ city: expect.any(String) });
    expect(
      (first as unknown as { baton_run: { status: string; pending_tool_call_ids: string[] } }).baton_run,
    ).toMatchObject({
      status: 'requires_action',
      pending_tool_call_ids: [call.call_id],
    });

    const second = await client.responses.create({
      model: 'scripted:auto',
      previous_response_id: first.id,
      input: [
        {
          type: 'function_call_output',
          call_id: call.call_id,
          output: JSON.stringify({ temperature: 18, unit: 'celsius', conditions: 'partly cloudy' }),
        },
      ],
    });
    expect(checkResponse(second)).toEqual([]);
    expect(second.id).not.toBe(first.id);
    expect(second.previous_response_id).toBe(first.id);
    expect(second.status).toBe('completed');
    expect(second.output_text.length).toBeGreaterThan(0);
    expect(second.output.some((item) => item.type === 'function_call')).toBe(false);

    const again = await client.responses.retrieve(first.id);
    expect(again.output.map((item) => item.id)).toEqual(first.output.map((item) => item.id));
  });

  it('streams the call with function_call_arguments.delta/.done, then streams the answer text', async () => {
    const stream = await client.responses.create({
      model: 'scripted:auto',
      input: 'What is the weather in Paris?',
      tools: [getWeather],
      stream: true,
    });
    const events: unknown[] = [];
    const calls: { name: string; arguments: string; item_id: string; call_id: string }[] = [];
    let responseId = '';
    for await (const event of stream) {
      events.push(event);
      // The seed's stream loop reads `event.call_id` here; Baton adds it to the spec's event.
      if (event.type === 'response.function_call_arguments.done')
        calls.push({
          name: event.name,
          arguments: event.arguments,
          item_id: event.item_id,
          call_id: (event as unknown as { call_id: string }).call_id,
        });
      if (event.type === 'response.completed') responseId = event.response.id;
    }
    expect(checkStream(events)).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.name).toBe('get_weather');
    const completed = await client.responses.retrieve(responseId);
    const call = completed.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call item');
    expect(calls[0]?.call_id).toBe(call.call_id);

    const final = await client.responses.create({
      model: 'scripted:auto',
      previous_response_id: responseId,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temperature":18}' }],
      stream: true,
    });
    const finalEvents: unknown[] = [];
    let text = '';
    for await (const event of final) {
      finalEvents.push(event);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(checkStream(finalEvents)).toEqual([]);
    expect(text.length).toBeGreaterThan(0);
  });

  it('answers parallel calls with all outputs in one request', async () => {
    const first = await client.responses.create({
      model: 'scripted:auto',
      input: 'What is the weather in Paris and what is the weather in Tokyo?',
      tools: [getWeather],
    });
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls.length).toBe(2);
    const second = await client.responses.create({
      model: 'scripted:auto',
      previous_response_id: first.id,
      input: calls.map((item) => ({
        type: 'function_call_output' as const,
        call_id: item.type === 'function_call' ? item.call_id : '',
        output: '{"temperature":20}',
      })),
    });
    expect(second.status).toBe('completed');
    const inputItems = await client.responses.inputItems.list(second.id, { order: 'asc' });
    expect(inputItems.data.map((item) => (item.type === 'function_call_output' ? item.call_id : item.type))).toEqual(
      calls.map((item) => (item.type === 'function_call' ? item.call_id : '')),
    );
  });

  it('maps errors to the SDK error classes', async () => {
    await expect(client.responses.create({ model: 'no-such-agent', input: 'hi' })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    await expect(
      client.responses.create({ model: 'scripted:auto', previous_response_id: 'resp_missing', input: 'hi' }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'previous_response_not_found',
    });
    await expect(client.responses.retrieve('resp_missing')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const unauthorised = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'bk_wrong', maxRetries: 0 });
    await expect(unauthorised.responses.create({ model: 'scripted:auto', input: 'hi' })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
  });
});
