import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { describe, expect, it } from 'vitest';
import { startChatCompletionsFake } from './chat-completions-fake.ts';
import type { ChatCompletionsFake } from './chat-completions-fake.ts';
import { cityTool, closedAfterEach, postJson, postRaw, streamToolLoop } from './fake-test-kit.ts';
import type { ModelScript } from './provider-fake.ts';

const start = closedAfterEach(startChatCompletionsFake);
/** The fake the running test started; `post` and `runLoop` talk to it. */
let fake: ChatCompletionsFake | undefined;

const weatherTool = cityTool('Get the current weather for a city', (city) => ({
  city,
  forecast: city === 'Paris' ? 'rain' : 'sun',
}));

function weatherScript(cities: string[]): ModelScript {
  return (view) => {
    if (view.toolResults.length === 0) {
      return {
        reasoning: `Look up ${cities.join(' and ')}.`,
        calls: cities.map((city) => ({ name: 'weather', arguments: { city } })),
        usage: { inputTokens: 50, outputTokens: 20, cachedInputTokens: 10, reasoningTokens: 6 },
      };
    }
    return { text: `Done. ${view.toolResults.map((r) => `${r.name}:${r.output}`).join(' | ')}` };
  };
}

/** The AI SDK loop against the fake through `@ai-sdk/openai-compatible`, with the weather tool. */
function runLoop(prompt: string, includeUsage?: boolean) {
  const local = createOpenAICompatible({ name: 'local', baseURL: fake!.baseURL, apiKey: 'test', includeUsage });
  return streamToolLoop({ model: local('qwen3'), prompt, tools: { weather: weatherTool } });
}

function post(body: unknown, headers: Record<string, string> = { authorization: 'Bearer test' }) {
  return postJson(`${fake!.baseURL}/chat/completions`, body, headers);
}

const user = { role: 'user', content: 'Weather in Paris and Rome?' };
const twoCalls = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
    { id: 'call_b', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
  ],
};

describe('Chat Completions fake: the AI SDK loop', () => {
  it('runs reasoning → tool call → text, replaying the call and its reasoning', async () => {
    fake = await start(weatherScript(['Paris']));
    const result = runLoop('What is the weather in Paris?', true);
    const text = await result.text;
    const steps = await result.steps;

    expect(text).toBe('Done. weather:{"city":"Paris","forecast":"rain"}');
    expect(fake.rejections).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    expect(steps[0]!.reasoningText).toBe('Look up Paris.');
    expect(steps[0]!.usage).toMatchObject({ inputTokens: 50, outputTokens: 20 });
    expect(steps[0]!.usage.inputTokenDetails.cacheReadTokens).toBe(10);
    expect(steps[0]!.usage.outputTokenDetails.reasoningTokens).toBe(6);

    const [callId] = fake.issuedToolCallIds();
    const messages = fake.requests[1]!.body.messages as any[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]).toMatchObject({
      reasoning_content: 'Look up Paris.',
      tool_calls: [{ id: callId, type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
    });
    expect(messages[2]).toMatchObject({ tool_call_id: callId });
    expect(fake.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  it('runs two parallel calls (reasoning in `delta.reasoning`, as Ollama streams it) and answers once both results arrive', async () => {
    fake = await start(weatherScript(['Paris', 'Rome']), { reasoningField: 'reasoning' });
    const result = runLoop('Weather in Paris and Rome?');
    const text = await result.text;
    const steps = await result.steps;

    expect(text).toBe('Done. weather:{"city":"Paris","forecast":"rain"} | weather:{"city":"Rome","forecast":"sun"}');
    expect(fake.rejections).toEqual([]);
    expect(steps[0]!.reasoningText).toBe('Look up Paris and Rome.');
    const messages = fake.requests[1]!.body.messages as any[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(messages[1].tool_calls.map((c: any) => c.id)).toEqual(fake.issuedToolCallIds());
    expect(messages.slice(2).map((m) => m.tool_call_id)).toEqual(fake.issuedToolCallIds());
  });
});

describe('Chat Completions fake: rule violations', () => {
  it('refuses tool calls without responses, including parallel results split across turns', async () => {
    fake = await start(() => ({ text: 'ok' }));
    const ok = await post({
      model: 'qwen3',
      messages: [
        user,
        twoCalls,
        { role: 'tool', tool_call_id: 'call_b', content: 'sun' },
        { role: 'tool', tool_call_id: 'call_a', content: 'rain' },
      ],
    });
    expect(ok.status).toBe(200);

    const split = await post({
      model: 'qwen3',
      messages: [
        user,
        twoCalls,
        { role: 'tool', tool_call_id: 'call_a', content: 'rain' },
        { role: 'user', content: 'and?' },
        { role: 'tool', tool_call_id: 'call_b', content: 'sun' },
      ],
    });
    expect(split.status).toBe(400);
    expect(split.body.error).toEqual({
      message:
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following " +
        'tool_call_ids did not have response messages: call_b',
      type: 'invalid_request_error',
      param: 'messages.[3].role',
      code: null,
    });

    const none = await post({ model: 'qwen3', messages: [user, twoCalls] });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/did not have response messages: call_a, call_b$/);
    expect(none.body.error.param).toBe('messages');
  });

  it('refuses a tool message that answers no preceding tool call', async () => {
    fake = await start(() => ({ text: 'ok' }));
    const orphan = await post({
      model: 'qwen3',
      messages: [user, { role: 'tool', tool_call_id: 'call_a', content: 'rain' }],
    });
    expect(orphan.status).toBe(400);
    expect(orphan.body.error).toEqual({
      message:
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      type: 'invalid_request_error',
      param: 'messages.[1].role',
      code: null,
    });

    const wrongId = await post({
      model: 'qwen3',
      messages: [user, twoCalls, { role: 'tool', tool_call_id: 'call_zzz', content: 'rain' }],
    });
    expect(wrongId.status).toBe(400);
    expect(wrongId.body.error.message).toBe(
      "Invalid parameter: 'tool_call_id' of 'call_zzz' not found in 'tool_calls' of previous message.",
    );

    const noId = await post({ model: 'qwen3', messages: [user, twoCalls, { role: 'tool', content: 'rain' }] });
    expect(noId.status).toBe(400);
    expect(noId.body.error).toMatchObject({
      message: "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
      param: 'messages.[2].tool_call_id',
    });
  });

  it('refuses missing auth, model or messages', async () => {
    fake = await start(() => ({ text: 'ok' }));
    const noKey = await post({ model: 'qwen3', messages: [user] }, {});
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.message).toMatch(/^You didn't provide an API key\./);

    const noModel = await post({ messages: [user] });
    expect(noModel.status).toBe(400);
    expect(noModel.body.error.message).toBe('you must provide a model parameter');

    const empty = await post({ model: 'qwen3', messages: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe("[] is too short - 'messages'");

    const badRole = await post({ model: 'qwen3', messages: [{ role: 'bot', content: 'hi' }] });
    expect(badRole.status).toBe(400);
    expect(badRole.body.error.param).toBe('messages[0].role');
    expect(fake.rejections.map((r) => r.status)).toEqual([401, 400, 400, 400]);
  });

  it('serves without auth when configured like Ollama, and answers plain JSON when not streaming', async () => {
    fake = await start(() => ({ reasoning: 'hmm', text: 'Hello!' }), { apiKey: false });
    const { status, body } = await post({ model: 'qwen3', messages: [user] }, {});
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'qwen3',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: { role: 'assistant', content: 'Hello!', reasoning_content: 'hmm' },
        },
      ],
    });
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });
});

describe('Chat Completions fake: streaming wire shape', () => {
  it('streams role, reasoning, content, tool call deltas, finish, usage and [DONE]', async () => {
    fake = await start(
      () => ({
        reasoning: 'Think.',
        text: 'Checking.',
        calls: [{ name: 'weather', arguments: { city: 'Paris' } }],
        usage: { inputTokens: 12, outputTokens: 9, cachedInputTokens: 4, reasoningTokens: 2 },
      }),
      { chunkSize: 10 },
    );
    const response = await postRaw(
      `${fake.baseURL}/chat/completions`,
      { model: 'qwen3', messages: [user], stream: true, stream_options: { include_usage: true } },
      { authorization: 'Bearer test' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const lines = (await response.text()).trim().split('\n\n');
    expect(lines.every((line) => line.startsWith('data: '))).toBe(true);
    expect(lines.at(-1)).toBe('data: [DONE]');
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line.slice('data: '.length)));
    expect(new Set(chunks.map((c) => c.object))).toEqual(new Set(['chat.completion.chunk']));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);

    const deltas = chunks.slice(0, -1).map((c) => c.choices[0].delta);
    const [callId] = fake.issuedToolCallIds();
    expect(deltas).toEqual([
      { role: 'assistant', content: '' },
      { reasoning_content: 'Think.' },
      { content: 'Checking.' },
      { tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: 'weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":"P' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'aris"}' } }] },
      {},
    ]);
    expect(chunks.slice(0, -1).map((c) => c.choices[0].finish_reason)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      'tool_calls',
    ]);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 9,
        total_tokens: 21,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 2 },
      },
    });
    expect(callId).toMatch(/^call_[A-Za-z0-9]{24}$/);
  });

  it('ends with finish_reason stop and no usage chunk unless asked', async () => {
    fake = await start(() => ({ text: 'Hi' }));
    const response = await postRaw(
      `${fake.baseURL}/chat/completions`,
      { model: 'qwen3', messages: [user], stream: true },
      { authorization: 'Bearer test' },
    );
    const lines = (await response.text()).trim().split('\n\n');
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line.slice('data: '.length)));
    expect(chunks.map((c) => c.choices[0].finish_reason)).toEqual([null, null, 'stop']);
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
  });
});
