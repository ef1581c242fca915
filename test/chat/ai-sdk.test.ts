import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { ledgerRow, ownKeyId, WEATHER_QUESTION } from './chat-fixtures.ts';

/** The AI SDK's OpenAI-compatible provider with a Baton agent as its model (multi-step, a tool with `execute`). */
describe('Chat Completions with the AI SDK (@ai-sdk/openai-compatible)', () => {
  let server: TestBaton;
  let keyId: string;
  const provider = () =>
    createOpenAICompatible({ name: 'baton', baseURL: `${server.url}/v1`, apiKey: server.key, includeUsage: true });

  beforeAll(async () => {
    server = await startTestBaton();
    keyId = await ownKeyId(server);
  });
  afterAll(async () => server?.close());

  const weather = () => {
    const seen: string[] = [];
    return {
      seen,
      getWeather: tool({
        description: 'Get the current weather of a city',
        inputSchema: z.object({ city: z.string().describe('City name') }),
        execute: async ({ city }) => {
          seen.push(city);
          return { city, temperature: 17, conditions: 'windy' };
        },
      }),
    };
  };

  it('generateText: the tool call comes back, the SDK executes it, the next step answers from its result', async () => {
    const { seen, getWeather } = weather();
    const result = await generateText({
      model: provider().chatModel('scripted:auto'),
      prompt: WEATHER_QUESTION,
      tools: { get_weather: getWeather },
      stopWhen: stepCountIs(3),
    });
    expect(seen).toEqual(['Paris']);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.finishReason).toBe('tool-calls');
    const [call] = result.steps[0]?.toolCalls ?? [];
    expect(call?.toolName).toBe('get_weather');
    expect(call?.toolCallId).toMatch(/^call_/);
    expect(result.finishReason).toBe('stop');
    expect(result.text).toContain('17');
    expect(result.totalUsage.inputTokens).toBeGreaterThan(0);
    // Baton made the call, so the ledger has it, answered by the SDK's request.
    expect(await ledgerRow(server, call!.toolCallId)).toMatchObject({
      state: 'completed',
      submitted_by: keyId,
      name: 'get_weather',
    });
  });

  it('streamText: the same round trip streamed', async () => {
    const { seen, getWeather } = weather();
    const result = streamText({
      model: provider().chatModel('scripted:auto'),
      prompt: 'What is the weather in Lisbon?',
      tools: { get_weather: getWeather },
      stopWhen: stepCountIs(3),
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(seen).toEqual(['Lisbon']);
    expect(text).toContain('17');
    expect(await result.finishReason).toBe('stop');
    expect((await result.totalUsage).outputTokens).toBeGreaterThan(0);
  });
});
