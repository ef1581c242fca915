import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { batonOf, getWeatherTool, ledgerRow, ownKeyId, PARIS_WEATHER, WEATHER_QUESTION } from './chat-fixtures.ts';

/** The official `openai` client (v6) against a real Baton on a real port: Chat Completions, unchanged. */
describe('Chat Completions with the official openai client', () => {
  let server: TestBaton;
  let client: OpenAI;
  let keyId: string;

  beforeAll(async () => {
    server = await startTestBaton();
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
    keyId = await ownKeyId(server);
  });
  afterAll(async () => server?.close());

  it('answers a plain message with a chat.completion', async () => {
    const completion = await client.chat.completions.create({
      model: 'scripted:auto',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello there, how are you?' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('scripted:auto');
    expect(completion.created).toBeGreaterThan(1_600_000_000);
    expect(completion.choices).toHaveLength(1);
    const [choice] = completion.choices;
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.role).toBe('assistant');
    expect(choice?.message.content).toEqual(expect.stringContaining('Hello there'));
    expect(choice?.message.tool_calls).toBeUndefined();
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
    expect(batonOf(completion)).toMatchObject({ status: 'completed', applied: 'started', pending_tool_call_ids: [] });
  });

  it('returns tool_calls, then takes the tool message back: the ledger row is resolved by this key', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: WEATHER_QUESTION }];
    const first = await client.chat.completions.create({ model: 'scripted:auto', messages, tools: [getWeatherTool] });
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const call = choice?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.id).toMatch(/^call_/);
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    expect(batonOf(first)).toMatchObject({ status: 'requires_action', pending_tool_call_ids: [call.id] });

    // The call is a ledger row like any other, pending until the client answers.
    expect(await ledgerRow(server, call.id)).toMatchObject({
      state: 'pending',
      kind: 'client',
      name: 'get_weather',
      input: { city: 'Paris' },
      thread_id: batonOf(first).conversation_id,
    });

    messages.push(choice!.message, { role: 'tool', tool_call_id: call.id, content: PARIS_WEATHER });
    const second = await client.chat.completions.create({ model: 'scripted:auto', messages, tools: [getWeatherTool] });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message.content).toContain('get_weather');
    expect(second.choices[0]?.message.content).toContain('18');
    // The same conversation went on: the paused run resumed with the result.
    expect(batonOf(second)).toMatchObject({
      applied: 'answered',
      status: 'completed',
      conversation_id: batonOf(first).conversation_id,
      turn_id: batonOf(first).turn_id,
    });
    expect(await ledgerRow(server, call.id)).toMatchObject({
      state: 'completed',
      submitted_by: keyId,
      result: { content: PARIS_WEATHER, is_error: false },
    });
    // Only the tokens of the resumed step: the first step's were reported with the first reply.
    expect(second.usage?.prompt_tokens).toBeGreaterThan(0);

    // A later question with the whole history is a new exchange; the answered call is history.
    messages.push(second.choices[0]!.message, { role: 'user', content: 'Thanks! Say goodbye.' });
    const third = await client.chat.completions.create({ model: 'scripted:auto', messages });
    expect(third.choices[0]?.finish_reason).toBe('stop');
    expect(batonOf(third).applied).toBe('started');
    expect(await ledgerRow(server, call.id)).toMatchObject({ state: 'completed', submitted_by: keyId });
  });

  it('streams chunks: the role first, content deltas, the finish reason, the usage, [DONE]', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Tell me something nice.' }];
    const whole = await client.chat.completions.create({ model: 'scripted:auto', messages });
    const stream = await client.chat.completions.create({
      model: 'scripted:auto',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe(whole.choices[0]?.message.content);
    const finishing = chunks.filter((chunk) => chunk.choices[0]?.finish_reason);
    expect(finishing.map((chunk) => chunk.choices[0]?.finish_reason)).toEqual(['stop']);
    const last = chunks[chunks.length - 1];
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('streams tool calls with index, id, name, then arguments, and finish_reason tool_calls', async () => {
    const stream = await client.chat.completions.create({
      model: 'scripted:auto',
      messages: [{ role: 'user', content: WEATHER_QUESTION }],
      tools: [getWeatherTool],
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: 'function' });
    expect(deltas[0]?.function?.name).toBe('get_weather');
    const argumentsText = deltas.map((delta) => delta.function?.arguments ?? '').join('');
    expect(JSON.parse(argumentsText)).toEqual({ city: 'Paris' });
    expect(chunks[chunks.length - 1]?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.some((chunk) => 'usage' in chunk && chunk.usage)).toBe(false);
    expect((await ledgerRow(server, deltas[0]!.id!)).state).toBe('pending');
  });

  it('runTools: the helper runs a local function tool and finishes the round trip', async () => {
    const seen: unknown[] = [];
    const runner = client.chat.completions.runTools({
      model: 'scripted:auto',
      messages: [{ role: 'user', content: WEATHER_QUESTION }],
      tools: [
        {
          type: 'function',
          function: {
            ...getWeatherTool.function,
            parse: (text: string) => JSON.parse(text) as { city: string },
            function: async (args: { city: string }) => {
              seen.push(args);
              return { city: args.city, temperature: 21, conditions: 'clear' };
            },
          },
        },
      ],
    });
    const final = await runner.finalContent();
    expect(seen).toEqual([{ city: 'Paris' }]);
    expect(final).toContain('21');
    const calls = runner.messages.flatMap((message) =>
      'tool_calls' in message && message.tool_calls ? message.tool_calls : [],
    );
    expect(calls).toHaveLength(1);
    expect(await ledgerRow(server, calls[0]!.id)).toMatchObject({ state: 'completed', submitted_by: keyId });
  });

  it('tool_choice, parallel_tool_calls, metadata and user apply to the run', async () => {
    const getTime = {
      type: 'function' as const,
      function: {
        name: 'get_time',
        description: 'Get the local time of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    };
    const twoCities = [{ role: 'user' as const, content: 'What is the weather in Paris and in Tokyo?' }];
    const callsOf = (completion: OpenAI.ChatCompletion) =>
      (completion.choices[0]?.message.tool_calls ?? []).map((call) =>
        call.type === 'function' ? `${call.function.name} ${call.function.arguments}` : call.type,
      );

    const none = await client.chat.completions.create({
      model: 'scripted:auto',
      messages: twoCities,
      tools: [getWeatherTool],
      tool_choice: 'none',
    });
    expect(none.choices[0]?.finish_reason).toBe('stop');
    expect(callsOf(none)).toEqual([]);

    const forced = await client.chat.completions.create({
      model: 'scripted:auto',
      messages: [{ role: 'user', content: WEATHER_QUESTION }],
      tools: [getWeatherTool, getTime],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    expect(callsOf(forced)).toEqual(['get_time {"city":"Paris"}']);

    const parallel = await client.chat.completions.create({
      model: 'scripted:auto',
      messages: twoCities,
      tools: [getWeatherTool],
    });
    expect(callsOf(parallel)).toEqual(['get_weather {"city":"Paris"}', 'get_weather {"city":"Tokyo"}']);
    const single = await client.chat.completions.create({
      model: 'scripted:auto',
      messages: twoCities,
      tools: [getWeatherTool],
      parallel_tool_calls: false,
      tool_choice: 'required',
      metadata: { order: 'A-42' },
      user: 'customer-7',
      temperature: 0.2,
      max_completion_tokens: 200,
    });
    expect(callsOf(single)).toHaveLength(1);
    const thread = await server.request('GET', `/v1/threads/${batonOf(single).conversation_id}`);
    expect(thread.body.metadata).toEqual({ order: 'A-42', user: 'customer-7' });
  });

  it('a Baton agent is a model: its own client tools come back as tool_calls', async () => {
    const completion = await client.chat.completions.create({
      model: 'refund-desk',
      messages: [{ role: 'user', content: 'I want a refund of $40 for my broken kettle.' }],
    });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function.name).toBe('request_approval');
    expect(JSON.parse(call.function.arguments)).toMatchObject({ action: 'refund', amount: 40 });
    expect(completion.model).toBe('refund-desk');
  });
});
