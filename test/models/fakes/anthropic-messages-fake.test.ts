import { describe, expect, it } from 'vitest';
import { BASE, HEADERS, runLoop, weatherScript } from './anthropic-fake-test-kit.ts';
import { startAnthropicMessagesFake } from './anthropic-messages-fake.ts';
import { closedAfterEach, postRaw } from './fake-test-kit.ts';

// The rules are tested in anthropic-messages-rules.test.ts.

const start = closedAfterEach(startAnthropicMessagesFake);

describe('Anthropic Messages fake: the AI SDK loop', () => {
  it('runs thinking + a tool call, and the follow-up carries the signed thinking block back unchanged', async () => {
    const script = weatherScript(['Paris']);
    const fake = await start(script);
    const { result, errors } = runLoop(fake, 'What is the weather in Paris?');

    expect(await result.text).toBe('Paris is sunny.');
    expect(errors).toEqual([]);
    expect(fake.rejections).toEqual([]);
    expect(fake.requests).toHaveLength(2);

    const first = fake.requests[0]!;
    expect(first.path).toBe('/v1/messages');
    expect(first.headers['x-api-key']).toBe('test');
    expect(first.headers['anthropic-version']).toBe('2023-06-01');
    expect(first.body.stream).toBe(true);
    expect(first.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(script.views[0]).toMatchObject({
      model: 'claude-sonnet-4-5',
      requestIndex: 0,
      tools: ['get_weather'],
      lastUserText: 'What is the weather in Paris?',
      toolResults: [],
      reasoningRequested: true,
    });

    const [issued] = fake.issuedThinking;
    const [callId] = fake.issuedToolUseIds;
    expect(issued).toBeDefined();
    expect(callId).toMatch(/^toolu_01[0-9A-Za-z]{22}$/);
    const followUp = fake.requests[1]!.body;
    expect(followUp.messages).toHaveLength(3);
    expect(followUp.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: issued!.thinking, signature: issued!.signature },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: callId, name: 'get_weather', input: { city: 'Paris' } },
      ],
    });
    expect(fake.verifySignature(issued!.thinking, followUp.messages[1].content[0].signature)).toBe(true);
    expect(followUp.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: callId, content: JSON.stringify({ city: 'Paris', forecast: 'sunny' }) },
    ]);
    expect(script.views[1]).toMatchObject({
      requestIndex: 1,
      lastUserText: null,
      toolResults: [
        { callId, name: 'get_weather', output: '{"city":"Paris","forecast":"sunny"}', isError: false, mediaTypes: [] },
      ],
    });
    const [firstStep] = await result.steps;
    expect(firstStep!.reasoningText).toBe(issued!.thinking);
    const reasoningPart = firstStep!.content.find((part) => part.type === 'reasoning');
    expect(reasoningPart?.providerMetadata?.anthropic).toEqual({ signature: issued!.signature });
  });

  it('answers two parallel calls, and all their results come back together in one user message', async () => {
    const fake = await start(weatherScript(['Paris', 'London']));
    const { result, errors } = runLoop(fake, 'Weather in Paris and London?');

    expect(await result.text).toBe('Paris is sunny, London is rainy.');
    expect(errors).toEqual([]);
    expect(fake.rejections).toEqual([]);
    expect(fake.requests).toHaveLength(2);

    const ids = fake.issuedToolUseIds;
    expect(ids).toHaveLength(2);
    const [assistant, user] = fake.requests[1]!.body.messages.slice(1);
    expect(assistant.content.map((block: any) => block.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    expect(assistant.content[0]).toEqual({
      type: 'thinking',
      thinking: fake.issuedThinking[0]!.thinking,
      signature: fake.issuedThinking[0]!.signature,
    });
    expect(user.content.map((block: any) => [block.type, block.tool_use_id])).toEqual([
      ['tool_result', ids[0]],
      ['tool_result', ids[1]],
    ]);
  });

  it('round-trips redacted_thinking data through the AI SDK', async () => {
    const fake = await start(weatherScript(['Paris']), { redactThinking: true });
    const { result, errors } = runLoop(fake, 'What is the weather in Paris?');

    expect(await result.text).toBe('Paris is sunny.');
    expect(errors).toEqual([]);
    expect(fake.rejections).toEqual([]);
    const [issued] = fake.issuedRedactedThinking;
    expect(fake.issuedThinking).toEqual([]);
    expect(fake.requests[1]!.body.messages[1].content[0]).toEqual({ type: 'redacted_thinking', data: issued!.data });
  });

  it('reports usage in Anthropic fields, cached tokens apart from input_tokens', async () => {
    const fake = await start(() => ({
      reasoning: 'Short.',
      text: 'Hello.',
      usage: { inputTokens: 100, cachedInputTokens: 40, outputTokens: 20, reasoningTokens: 5 },
    }));
    const { result, errors } = runLoop(fake, 'Hi');
    expect(await result.text).toBe('Hello.');
    expect(errors).toEqual([]);
    const usage = await result.totalUsage;
    expect(usage.inputTokens).toBe(100);
    expect(usage.inputTokenDetails.cacheReadTokens).toBe(40);
    expect(usage.inputTokenDetails.noCacheTokens).toBe(60);
    expect(usage.outputTokens).toBe(20);
    expect(usage.outputTokenDetails.reasoningTokens).toBe(5);
  });
});

// ---------------------------------------------------------------------------------------------

interface SseEvent {
  event: string;
  data: any;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))!.slice('event: '.length);
      const data = JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice('data: '.length));
      return { event, data };
    });
}

describe('Anthropic Messages fake: streaming wire shape', () => {
  it('streams thinking, text and a tool call as Anthropic SSE events', async () => {
    const reasoning = 'The user wants Paris weather, so I call get_weather.';
    const fake = await start(
      () => ({
        reasoning,
        text: 'Checking the weather now.',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
      }),
      { chunkSize: 10 },
    );
    const response = await postRaw(
      fake.url,
      { ...BASE, stream: true, messages: [{ role: 'user', content: 'Paris?' }] },
      HEADERS,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse(await response.text());

    for (const { event, data } of events) expect(data.type).toBe(event);
    const labels = events.map(({ data }) =>
      data.type === 'content_block_start'
        ? `start:${data.content_block.type}`
        : data.type === 'content_block_delta'
          ? data.delta.type
          : data.type,
    );
    const collapsed = labels.filter((label, i) => label !== labels[i - 1]);
    expect(collapsed).toEqual([
      'message_start',
      'start:thinking',
      'ping',
      'thinking_delta',
      'signature_delta',
      'content_block_stop',
      'start:text',
      'text_delta',
      'content_block_stop',
      'start:tool_use',
      'input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(labels.filter((label) => label === 'thinking_delta').length).toBeGreaterThan(1);

    const opening = events[0]!.data.message;
    expect(opening).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
    });
    expect(opening.id).toMatch(/^msg_01/);
    expect(opening.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

    const deltas = (index: number, field: string) =>
      events
        .filter(({ data }) => data.type === 'content_block_delta' && data.index === index && field in data.delta)
        .map(({ data }) => data.delta[field] as string);
    const thinkingText = deltas(0, 'thinking').join('');
    const [signature] = deltas(0, 'signature');
    expect(thinkingText).toBe(reasoning);
    expect(fake.verifySignature(thinkingText, signature!)).toBe(true);
    expect(deltas(1, 'text').join('')).toBe('Checking the weather now.');
    expect(JSON.parse(deltas(2, 'partial_json').join(''))).toEqual({ city: 'Paris' });

    const toolStart = events.find(({ data }) => data.type === 'content_block_start' && data.index === 2)!.data;
    expect(toolStart.content_block).toEqual({
      type: 'tool_use',
      id: fake.issuedToolUseIds[0],
      name: 'get_weather',
      input: {},
    });
    expect(events.filter(({ data }) => data.type === 'content_block_stop').map(({ data }) => data.index)).toEqual([
      0, 1, 2,
    ]);

    const messageDelta = events.find(({ data }) => data.type === 'message_delta')!.data;
    expect(messageDelta.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
    expect(messageDelta.usage).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: expect.any(Number),
      input_tokens: expect.any(Number),
    });
  });
});
