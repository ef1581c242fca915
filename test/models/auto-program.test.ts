import { generateText, jsonSchema, streamText, tool } from 'ai';
import type { ModelMessage, ToolResultPart } from 'ai';
import { describe, expect, it } from 'vitest';
import { autoProgram } from '../../src/models/scripted/auto-program.ts';
import { ScriptedLanguageModel } from '../../src/models/scripted/scripted-model.ts';

function autoModel(): ScriptedLanguageModel {
  return new ScriptedLanguageModel('auto', autoProgram);
}

const requestApproval = tool({
  description: 'Ask a human to approve an action',
  inputSchema: jsonSchema({
    type: 'object',
    properties: {
      action: { type: 'string', enum: ['refund', 'cancellation', 'discount'] },
      amount: { type: 'number', description: 'Amount in USD' },
      reason: { type: 'string' },
    },
    required: ['action', 'amount'],
  }),
});

const getWeather = tool({
  description: 'Get the current weather for a city',
  inputSchema: jsonSchema({
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
    },
    required: ['city'],
  }),
});

const lookupOrder = tool({
  description: 'Look up an order by its id',
  inputSchema: jsonSchema({
    type: 'object',
    properties: { order_id: { type: 'string' }, include_items: { type: 'boolean' } },
    required: ['order_id'],
  }),
});

const sendEmail = tool({
  description: 'Send an email to a recipient',
  inputSchema: jsonSchema({
    type: 'object',
    properties: {
      to: { type: 'string', format: 'email' },
      subject: { type: 'string' },
      body: { type: 'string' },
    },
    required: ['to', 'subject', 'body'],
  }),
});

const threeTools = { get_weather: getWeather, lookup_order: lookupOrder, send_email: sendEmail };

function toolTurn(
  calls: Array<{ id: string; name: string }>,
  results: Array<{ id: string; name: string; output: ToolResultPart['output'] }>,
): ModelMessage[] {
  return [
    { role: 'user', content: 'Do the things' },
    {
      role: 'assistant',
      content: calls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: {},
      })),
    },
    {
      role: 'tool',
      content: results.map((result) => ({
        type: 'tool-result' as const,
        toolCallId: result.id,
        toolName: result.name,
        output: result.output,
      })),
    },
  ];
}

describe('scripted:auto', () => {
  it('seed demo: a $500 refund request calls request_approval with action, amount and the message as reason', async () => {
    const result = await generateText({
      model: autoModel(),
      prompt: 'I need approval to process a $500 refund',
      tools: { request_approval: requestApproval },
    });

    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]?.toolName).toBe('request_approval');
    expect(result.toolCalls[0]?.input).toEqual({
      action: 'refund',
      amount: 500,
      reason: 'I need approval to process a $500 refund',
    });
  });

  it('seed demo streams the same call', async () => {
    const result = streamText({
      model: autoModel(),
      prompt: 'I need approval to process a $500 refund',
      tools: { request_approval: requestApproval },
    });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'tool-input-delta') deltas.push(part.delta);
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    const calls = await result.toolCalls;
    expect(calls[0]?.input).toMatchObject({ action: 'refund', amount: 500 });
  });

  it('picks the best-matching tool among three', async () => {
    const order = await generateText({
      model: autoModel(),
      prompt: 'Can you look up order ORD-12345 for me?',
      tools: threeTools,
    });
    expect(order.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ['lookup_order', { order_id: 'ORD-12345' }],
    ]);

    const email = await generateText({
      model: autoModel(),
      prompt: 'Email bob@example.com with subject "Quarterly report" and body "See attached"',
      tools: threeTools,
    });
    expect(email.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ['send_email', { to: 'bob@example.com', subject: 'Quarterly report', body: 'See attached' }],
    ]);

    const weather = await generateText({
      model: autoModel(),
      prompt: 'How is the weather in New York today?',
      tools: threeTools,
    });
    expect(weather.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ['get_weather', { city: 'New York' }],
    ]);
  });

  it('scores tools by their own words when tools share one schema object (words are kept per tool)', async () => {
    // The words of a tool are made once and kept by its schema object, name and description.
    const schema = jsonSchema({ type: 'object', properties: { note: { type: 'string' } } });
    const pick = async (prompt: string) =>
      (
        await generateText({
          model: autoModel(),
          prompt,
          tools: {
            book_flight: tool({ description: 'Reserve a seat on a plane', inputSchema: schema }),
            cancel_booking: tool({ description: 'Undo a reservation', inputSchema: schema }),
          },
        })
      ).toolCalls.map((call) => call.toolName);
    expect(await pick('Please book a flight to Rome')).toEqual(['book_flight']);
    expect(await pick('Cancel my booking, please')).toEqual(['cancel_booking']);
    expect(await pick('Please book a flight to Rome')).toEqual(['book_flight']);
  });

  it('uses the tool that toolChoice names even when another matches better', async () => {
    const result = await generateText({
      model: autoModel(),
      prompt: 'What is the weather in Paris?',
      tools: threeTools,
      toolChoice: { type: 'tool', toolName: 'lookup_order' },
    });
    expect(result.toolCalls.map((call) => call.toolName)).toEqual(['lookup_order']);
    expect(result.toolCalls[0]?.input).toEqual({ order_id: '<order_id>' });
  });

  it('falls back to the first tool when nothing matches', async () => {
    const result = await generateText({ model: autoModel(), prompt: 'xyzzy', tools: threeTools });
    expect(result.toolCalls.map((call) => call.toolName)).toEqual(['get_weather']);
  });

  it('emits one call per value when the message lists several ("Paris and Lisbon")', async () => {
    const result = await generateText({
      model: autoModel(),
      prompt: "What's the weather in Paris and Lisbon, in fahrenheit?",
      tools: threeTools,
    });
    expect(result.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ['get_weather', { city: 'Paris', unit: 'fahrenheit' }],
      ['get_weather', { city: 'Lisbon', unit: 'fahrenheit' }],
    ]);
    expect(new Set(result.toolCalls.map((call) => call.toolCallId)).size).toBe(2);
  });

  it('emits one call per distinct tool when clauses ask for different things', async () => {
    const result = await generateText({
      model: autoModel(),
      prompt: 'Check the weather in Paris and look up order ORD-77',
      tools: threeTools,
    });
    expect(result.toolCalls.map((call) => [call.toolName, call.input])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['lookup_order', { order_id: 'ORD-77' }],
    ]);
  });

  it('gives each fanned-out call the values of its own clause', async () => {
    const result = await generateText({
      model: autoModel(),
      prompt: 'I need a refund of $20 and a discount of $5',
      tools: { request_approval: requestApproval },
    });
    expect(result.toolCalls.map((call) => call.input)).toMatchObject([
      { action: 'refund', amount: 20 },
      { action: 'discount', amount: 5 },
    ]);
  });

  it('makes a single call when parallel calls are forbidden', async () => {
    const result = await generateText({
      model: autoModel(),
      prompt: "What's the weather in Paris and Lisbon?",
      tools: threeTools,
      providerOptions: { scripted: { parallelToolCalls: false } },
    });
    expect(result.toolCalls.map((call) => call.input)).toEqual([{ city: 'Paris' }]);
  });

  it('fills arguments from default, enum, examples and typed placeholders', async () => {
    const configure = tool({
      description: 'Configure the widget',
      inputSchema: jsonSchema({
        type: 'object',
        properties: {
          mode: { type: 'string', enum: ['fast', 'safe'] },
          level: { type: 'integer', default: 3 },
          label: { type: 'string', examples: ['blue-widget'] },
          name: { type: 'string' },
          ratio: { type: 'number', minimum: 1 },
          enabled: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' } },
          owner: {
            type: 'object',
            properties: {
              email: { type: 'string', format: 'email' },
              team: { type: 'string' },
              note: { type: 'string' },
            },
            required: ['email', 'team'],
          },
          optional_flag: { type: 'boolean' },
        },
        required: ['mode', 'level', 'label', 'name', 'ratio', 'enabled', 'tags', 'owner'],
      }),
    });
    const result = await generateText({ model: autoModel(), prompt: 'configure it', tools: { configure } });
    expect(result.toolCalls[0]?.input).toEqual({
      mode: 'fast',
      level: 3,
      label: 'blue-widget',
      name: '<name>',
      ratio: 1,
      enabled: false,
      tags: [],
      // Free-text fields ("note") count as found: they take the request itself.
      owner: { email: 'user@example.com', team: '<team>', note: 'configure it' },
    });
  });

  it('takes values from the message: enums, numbers near their field, booleans, nested objects', async () => {
    const book = tool({
      description: 'Book a table',
      inputSchema: jsonSchema({
        type: 'object',
        properties: {
          guests: { type: 'integer' },
          budget: { type: 'number', description: 'Total budget in USD' },
          seating: { type: 'string', enum: ['indoor', 'outdoor', 'bar_counter'] },
          vegetarian: { type: 'boolean' },
          contact: {
            type: 'object',
            properties: { email: { type: 'string' } },
            required: ['email'],
          },
        },
        required: ['guests', 'seating'],
      }),
    });
    const result = await generateText({
      model: autoModel(),
      prompt: 'Book at the bar counter for 4 guests with a budget of $120.50, vegetarian: yes, contact ann@example.org',
      tools: { book },
    });
    expect(result.toolCalls[0]?.input).toEqual({
      guests: 4,
      seating: 'bar_counter',
      budget: 120.5,
      vegetarian: true,
      contact: { email: 'ann@example.org' },
    });
  });

  it('summarises tool results after they arrive, naming each tool', async () => {
    const result = await generateText({
      model: autoModel(),
      messages: toolTurn(
        [
          { id: 'a', name: 'get_weather' },
          { id: 'b', name: 'lookup_order' },
        ],
        [
          { id: 'a', name: 'get_weather', output: { type: 'json', value: { city: 'Paris', temperature: 18 } } },
          { id: 'b', name: 'lookup_order', output: { type: 'text', value: 'Shipped yesterday' } },
        ],
      ),
      tools: threeTools,
    });
    expect(result.finishReason).toBe('stop');
    expect(result.toolCalls).toHaveLength(0);
    expect(result.text).toBe(
      'Here are the 2 tool results:\n- get_weather: city: Paris, temperature: 18\n- lookup_order: Shipped yesterday',
    );
  });

  it('reports error results explicitly, using the tool name from the assistant call', async () => {
    const result = await generateText({
      model: autoModel(),
      messages: toolTurn(
        [{ id: 'x1', name: 'request_approval' }],
        // The result's own toolName is wrong on purpose: the id links it to the assistant's call.
        [{ id: 'x1', name: 'something_else', output: { type: 'error-text', value: 'Order not found' } }],
      ),
    });
    expect(result.text).toBe('The tool request_approval reported an error: Order not found.');
  });

  it('truncates long results to about 200 characters', async () => {
    const long = 'word '.repeat(200);
    const result = await generateText({
      model: autoModel(),
      messages: toolTurn(
        [{ id: 'a', name: 'lookup_order' }],
        [{ id: 'a', name: 'lookup_order', output: { type: 'text', value: long } }],
      ),
    });
    const line = result.text.split('\n')[1] ?? '';
    expect(line.startsWith('- lookup_order: word word')).toBe(true);
    expect(line.length).toBeLessThan(230);
    expect(line.endsWith('…')).toBe(true);
  });

  it('acknowledges a message when there are no tools, or tool use is off', async () => {
    const plain = await generateText({ model: autoModel(), prompt: 'Hello there' });
    expect(plain.text).toMatch(/^You said: "Hello there"\. /);
    expect(plain.finishReason).toBe('stop');

    const again = await generateText({ model: autoModel(), prompt: 'Hello there' });
    expect(again.text).toBe(plain.text);

    const none = await generateText({
      model: autoModel(),
      prompt: 'weather in Paris',
      tools: threeTools,
      toolChoice: 'none',
    });
    expect(none.toolCalls).toHaveLength(0);
    expect(none.text).toMatch(/^You said: "weather in Paris"\. /);
  });

  it('with toolChoice required, calls a tool even after results arrived', async () => {
    const result = await generateText({
      model: autoModel(),
      messages: toolTurn(
        [{ id: 'a', name: 'lookup_order' }],
        [{ id: 'a', name: 'lookup_order', output: { type: 'text', value: 'ok' } }],
      ),
      tools: threeTools,
      toolChoice: 'required',
    });
    expect(result.toolCalls).toHaveLength(1);
  });
});
