import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getWeather } from '../helpers/responses-lifecycle-fixtures.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * `text.format` with a JSON schema on the built-in scripted model: its text answer is JSON valid
 * against the schema, so the `openai` client's `responses.parse` (with a zod schema through
 * `zodTextFormat`) works offline, with and without a tool round trip.
 */

const Weather = z.object({
  city: z.string(),
  temperature: z.number(),
  unit: z.enum(['celsius', 'fahrenheit']),
  conditions: z.string(),
  advice: z.string().nullable(),
});

const Order = z.object({
  order_id: z.string(),
  items: z.array(z.object({ sku: z.string(), quantity: z.number().int().min(1) })).min(1),
  express: z.boolean(),
  contact: z.object({ email: z.string(), phone: z.string().nullable() }),
  status: z.enum(['pending', 'shipped', 'delivered']),
});

describe('Responses API: structured output (text.format json_schema) from the scripted model', () => {
  let server: TestBaton;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startTestBaton();
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
  });
  afterAll(async () => server?.close());

  it('responses.parse with zodTextFormat: the answer after a tool round trip parses, with the tool’s values', async () => {
    const first = await client.responses.parse({
      model: 'scripted:auto',
      input: 'What is the weather in Paris?',
      tools: [getWeather],
      text: { format: zodTextFormat(Weather, 'weather') },
    });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    expect(first.output_parsed).toBeNull();

    const answer = await client.responses.parse({
      model: 'scripted:auto',
      previous_response_id: first.id,
      input: [
        {
          type: 'function_call_output',
          call_id: call.call_id,
          output: JSON.stringify({ city: 'Paris', temperature: 18, unit: 'celsius', conditions: 'partly cloudy' }),
        },
      ],
      text: { format: zodTextFormat(Weather, 'weather') },
    });
    expect(answer.status).toBe('completed');
    expect(answer.output_parsed).toMatchObject({
      city: 'Paris',
      temperature: 18,
      unit: 'celsius',
      conditions: 'partly cloudy',
    });
    expect(Weather.parse(JSON.parse(answer.output_text))).toEqual(answer.output_parsed);
  });

  it('a nested schema (arrays, enums, nullable, integer bounds) parses, with values taken from the message', async () => {
    const parsed = await client.responses.parse({
      model: 'scripted:auto',
      input: 'Ship order ORD-12345 to ana@example.com, quantity 3, express yes.',
      text: { format: zodTextFormat(Order, 'order') },
    });
    expect(parsed.status).toBe('completed');
    const order = parsed.output_parsed;
    expect(Order.parse(order)).toEqual(order);
    expect(order).toMatchObject({ order_id: 'ORD-12345', contact: { email: 'ana@example.com' } });
  });

  it('streams JSON too, and json_object gives a JSON object', async () => {
    const stream = client.responses.stream({
      model: 'scripted:auto',
      input: 'What is the weather in Lisbon?',
      text: { format: zodTextFormat(Weather, 'weather') },
    });
    const final = await stream.finalResponse();
    expect(Weather.parse(final.output_parsed)).toMatchObject({ city: 'Lisbon' });

    const plain = await client.responses.create({
      model: 'scripted:auto',
      input: 'Say hello.',
      text: { format: { type: 'json_object' } },
    });
    expect(JSON.parse(plain.output_text)).toEqual({ answer: expect.stringContaining('Say hello.') });
  });
});
