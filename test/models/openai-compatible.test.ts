import { APICallError, RetryError, generateText, jsonSchema, streamText, tool } from 'ai';
import type { ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelRegistry } from '../../src/models/model-registry.ts';
import {
  chatCompletion,
  chatCompletionChunks,
  errorReply,
  jsonReply,
  startFakeOpenAIServer,
} from './fake-openai-server.ts';
import type { FakeOpenAIHandler, FakeOpenAIServer } from './fake-openai-server.ts';

const weatherTool = tool({
  description: 'Get the current weather for a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  }),
});

let server: FakeOpenAIServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelFor(handler: FakeOpenAIHandler) {
  server = await startFakeOpenAIServer(handler);
  const registry = createModelRegistry({
    providers: { 'openai-compatible': { baseURL: server.baseURL, apiKey: 'sk-test' } },
  });
  return { model: registry.resolve('openai-compatible:test-model'), server };
}

describe('openai-compatible models against a local fake server', () => {
  it('generateText: sends model, messages and tools, and parses a tool call', async () => {
    const { model, server } = await modelFor(() =>
      jsonReply(chatCompletion({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] })),
    );

    const result = await generateText({
      model,
      system: 'You are terse.',
      prompt: 'Weather in Paris?',
      tools: { get_weather: weatherTool },
    });

    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({
      toolCallId: 'call_1',
      toolName: 'get_weather',
      input: { city: 'Paris' },
    });
    expect(result.usage.inputTokens).toBe(10);

    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.headers['authorization']).toBe('Bearer sk-test');
    expect(request.body.model).toBe('test-model');
    expect(request.body.stream).toBeFalsy();
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris?' },
    ]);
    expect(request.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Get the current weather for a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
            additionalProperties: false,
          },
        },
      },
    ]);
  });

  it('generateText: returns a text answer and sends tool results back as tool messages', async () => {
    const { model, server } = await modelFor(() => jsonReply(chatCompletion({ text: 'It is sunny in Paris.' })));
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: { city: 'Paris' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'get_weather',
            output: { type: 'json', value: { condition: 'sunny' } },
          },
        ],
      },
    ];

    const result = await generateText({ model, messages, tools: { get_weather: weatherTool } });

    expect(result.text).toBe('It is sunny in Paris.');
    expect(result.finishReason).toBe('stop');
    const sent = server.requests[0]!.body.messages;
    expect(sent[1]).toMatchObject({
      role: 'assistant',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    });
    expect(sent[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '{"condition":"sunny"}' });
  });

  it('streamText: parses a streamed tool call from tool_calls deltas', async () => {
    const { model, server } = await modelFor(() => ({
      kind: 'sse',
      events: chatCompletionChunks({
        toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Lisbon' } }],
        usage: { prompt_tokens: 12, completion_tokens: 7 },
      }),
    }));

    const result = streamText({ model, prompt: 'Weather in Lisbon?', tools: { get_weather: weatherTool } });
    const types: string[] = [];
    const inputDeltas: string[] = [];
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === 'tool-input-delta') inputDeltas.push(part.delta);
      if (part.type === 'error') throw part.error;
    }

    expect(types).toEqual(
      expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call']),
    );
    expect(inputDeltas.length).toBeGreaterThanOrEqual(2);
    expect(inputDeltas.join('')).toBe('{"city":"Lisbon"}');
    const toolCalls = await result.toolCalls;
    expect(toolCalls).toHaveLength(1);
    expect(toolCalls[0]).toMatchObject({ toolCallId: 'call_9', toolName: 'get_weather', input: { city: 'Lisbon' } });
    expect(await result.finishReason).toBe('tool-calls');
    expect((await result.usage).outputTokens).toBe(7);

    const body = server.requests[0]!.body;
    expect(body.model).toBe('test-model');
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.messages).toEqual([{ role: 'user', content: 'Weather in Lisbon?' }]);
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['get_weather']);
  });

  it('streamText: streams a text answer in several deltas', async () => {
    const { model } = await modelFor(() => ({
      kind: 'sse',
      events: chatCompletionChunks({ text: 'Hello from the fake server.' }),
    }));

    const result = streamText({ model, prompt: 'Say hello' });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);

    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('Hello from the fake server.');
    expect(await result.text).toBe('Hello from the fake server.');
    expect(await result.finishReason).toBe('stop');
  });

  it('retries a 503 and succeeds on the next attempt', async () => {
    const { model, server } = await modelFor((request) =>
      request.index === 0
        ? errorReply(503, 'overloaded', { 'retry-after-ms': '10' })
        : jsonReply(chatCompletion({ text: 'Recovered.' })),
    );

    const result = await generateText({ model, prompt: 'Hi', maxRetries: 2 });

    expect(result.text).toBe('Recovered.');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a streamed 503 and succeeds on the next attempt', async () => {
    const { model, server } = await modelFor((request) =>
      request.index === 0
        ? errorReply(503, 'overloaded', { 'retry-after-ms': '10' })
        : { kind: 'sse', events: chatCompletionChunks({ text: 'Recovered stream.' }) },
    );

    const result = streamText({ model, prompt: 'Hi', maxRetries: 2 });

    expect(await result.text).toBe('Recovered stream.');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up on a persistent 500 after maxRetries and throws', async () => {
    const { model, server } = await modelFor(() => errorReply(500, 'boom', { 'retry-after-ms': '10' }));

    const error = await generateText({ model, prompt: 'Hi', maxRetries: 2 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(RetryError.isInstance(error)).toBe(true);
    const retryError = error as RetryError;
    expect(retryError.errors).toHaveLength(3);
    expect(APICallError.isInstance(retryError.lastError)).toBe(true);
    expect((retryError.lastError as APICallError).statusCode).toBe(500);
    expect(retryError.message).toContain('boom');
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    const { model, server } = await modelFor(() => errorReply(400, 'bad request'));

    const error = await generateText({ model, prompt: 'Hi', maxRetries: 2 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(400);
    expect(server.requests).toHaveLength(1);
  });
});
