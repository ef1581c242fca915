import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { ledgerRow, ownKeyId, PARIS_WEATHER, WEATHER_QUESTION } from './chat-fixtures.ts';

/** LangChain's ChatOpenAI with a Baton agent as its model: bindTools, a ToolMessage, the final answer. */
describe('Chat Completions with LangChain (@langchain/openai ChatOpenAI)', () => {
  let server: TestBaton;
  let keyId: string;
  const chat = () =>
    new ChatOpenAI({
      model: 'scripted:auto',
      apiKey: server.key,
      configuration: { baseURL: `${server.url}/v1` },
      maxRetries: 0,
    });
  const getWeather = tool(async ({ city }: { city: string }) => `It is 18 degrees in ${city}.`, {
    name: 'get_weather',
    description: 'Get the current weather of a city',
    schema: z.object({ city: z.string().describe('City name') }),
  });

  beforeAll(async () => {
    server = await startTestBaton();
    keyId = await ownKeyId(server);
  });
  afterAll(async () => server?.close());

  it('bindTools → tool_calls; a ToolMessage with the result → the final answer; the ledger row is resolved', async () => {
    const model = chat().bindTools([getWeather]);
    const history: BaseMessage[] = [new SystemMessage('You report the weather.'), new HumanMessage(WEATHER_QUESTION)];
    const first = await model.invoke(history);
    expect(first).toBeInstanceOf(AIMessage);
    expect(first.tool_calls).toHaveLength(1);
    const call = first.tool_calls![0]!;
    expect(call.name).toBe('get_weather');
    expect(call.args).toEqual({ city: 'Paris' });
    expect(call.id).toMatch(/^call_/);
    expect((await ledgerRow(server, call.id!)).state).toBe('pending');

    history.push(first, new ToolMessage({ tool_call_id: call.id!, content: PARIS_WEATHER }));
    const final = await model.invoke(history);
    expect(final.tool_calls ?? []).toEqual([]);
    expect(String(final.content)).toContain('18');
    expect(final.response_metadata['finish_reason']).toBe('stop');
    expect(final.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(await ledgerRow(server, call.id!)).toMatchObject({
      state: 'completed',
      submitted_by: keyId,
      result: { content: PARIS_WEATHER, is_error: false },
    });
  });

  // `.stream()`, not `invoke` with `streaming: true`: the latter estimates token counts with
  // tiktoken, which LangChain downloads from a CDN, and this machine has no internet.
  it('streaming: the tool call chunks add up to the call, and the answer streams', async () => {
    const model = chat().bindTools([getWeather]);
    const history: BaseMessage[] = [new HumanMessage('What is the weather in Rome?')];
    let first: AIMessageChunk | undefined;
    for await (const chunk of await model.stream(history)) first = first ? first.concat(chunk) : chunk;
    if (!first) throw new Error('the stream had no chunk');
    expect(first.response_metadata['finish_reason']).toBe('tool_calls');
    expect(first.usage_metadata?.output_tokens).toBeGreaterThan(0);
    const call = first.tool_calls?.[0];
    expect(call).toMatchObject({ name: 'get_weather', args: { city: 'Rome' } });

    // The tool itself runs the way LangChain runs it, and its ToolMessage goes back.
    const toolMessage = await getWeather.invoke({ ...call!, type: 'tool_call' });
    history.push(first, toolMessage);
    let answer = '';
    for await (const chunk of await model.stream(history)) answer += String(chunk.content);
    expect(answer).toContain('18 degrees in Rome');
  });
});
