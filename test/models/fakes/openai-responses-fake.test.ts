import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { cityTool, closedAfterEach, postJson, postRaw, streamToolLoop } from './fake-test-kit.ts';
import type { ProviderOptions } from './fake-test-kit.ts';
import { startOpenAIResponsesFake } from './openai-responses-fake.ts';
import type { OpenAIResponsesFake } from './openai-responses-fake.ts';
import type { ModelScript } from './provider-fake.ts';

// The rule violations are tested in openai-responses-rules.test.ts.

const start = closedAfterEach(startOpenAIResponsesFake);
/** The fake the running test started; `post` and `runLoop` talk to it. */
let fake: OpenAIResponsesFake | undefined;

const weatherTool = cityTool('Get the current weather for a city', (city) => ({
  city,
  forecast: city === 'Paris' ? 'rain' : 'sun',
}));

/** The AI SDK loop against the fake with `gpt-5-mini` (a reasoning model) and the weather tool. */
function runLoop(prompt: string, providerOptions?: ProviderOptions) {
  const openai = createOpenAI({ baseURL: fake!.baseURL, apiKey: 'test' });
  return streamToolLoop({ model: openai('gpt-5-mini'), prompt, tools: { weather: weatherTool }, providerOptions });
}

/** Reasoning + one call per city on the first request; a summary once the results are in. */
function weatherScript(cities: string[]): ModelScript {
  return (view) => {
    if (view.toolResults.length === 0) {
      return {
        reasoning: `I should look up the weather for ${cities.join(' and ')}.`,
        calls: cities.map((city) => ({ name: 'weather', arguments: { city } })),
        usage: { cachedInputTokens: 3, reasoningTokens: 12 },
      };
    }
    const summary = view.toolResults.map((r) => `${r.name}:${r.output}`).join(' | ');
    return { text: `Done. ${summary}` };
  };
}

function post(body: unknown, headers: Record<string, string> = { authorization: 'Bearer test' }) {
  return postJson(`${fake!.baseURL}/responses`, body, headers);
}

describe('OpenAI Responses fake: the AI SDK loop', () => {
  it('runs reasoning → tool call → text with the default store, sending reasoning back by reference', async () => {
    fake = await start(weatherScript(['Paris']));
    const result = runLoop('What is the weather in Paris?', { openai: { reasoningSummary: 'detailed' } });
    const text = await result.text;
    const steps = await result.steps;

    expect(text).toBe('Done. weather:{"city":"Paris","forecast":"rain"}');
    expect(fake.rejections).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    expect(steps[0]!.reasoningText).toBe('I should look up the weather for Paris.');
    expect(steps[0]!.usage.inputTokenDetails.cacheReadTokens).toBe(3);
    expect(steps[0]!.usage.outputTokenDetails.reasoningTokens).toBe(12);

    const [rsId] = fake.storedItemIds().filter((id) => id.startsWith('rs_'));
    const input = fake.requests[1]!.body.input as any[];
    const refIndex = input.findIndex((item) => item.type === 'item_reference' && item.id === rsId);
    expect(refIndex).toBeGreaterThan(0);
    expect(input[refIndex + 1]).toMatchObject({ type: 'function_call', name: 'weather' });
    const callIdSent = input[refIndex + 1].call_id as string;
    expect(callIdSent).toMatch(/^call_/);
    expect(input[refIndex + 2]).toMatchObject({ type: 'function_call_output', call_id: callIdSent });
  });

  it('runs two parallel calls and answers once both results arrive', async () => {
    fake = await start(weatherScript(['Paris', 'Rome']));
    const result = runLoop('Weather in Paris and Rome?');
    const text = await result.text;

    expect(text).toBe('Done. weather:{"city":"Paris","forecast":"rain"} | weather:{"city":"Rome","forecast":"sun"}');
    expect(fake.rejections).toEqual([]);
    const input = fake.requests[1]!.body.input as any[];
    expect(input.map((item) => item.type ?? item.role)).toEqual([
      'user',
      'item_reference',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
    ]);
    expect(input[1].id).toMatch(/^rs_/);
    // No summary was requested: the reasoning item carried an empty summary.
    expect(fake.requests[0]!.body.reasoning).toBeUndefined();
  });

  it('with store: false, sends the reasoning back by value with the exact encrypted content minted', async () => {
    fake = await start(weatherScript(['Paris']));
    const result = runLoop('What is the weather in Paris?', {
      openai: { store: false, include: ['reasoning.encrypted_content'], reasoningSummary: 'auto' },
    });
    const text = await result.text;

    expect(text).toBe('Done. weather:{"city":"Paris","forecast":"rain"}');
    expect(fake.rejections).toEqual([]);
    expect(fake.storedItemIds()).toEqual([]);
    const [issued] = fake.issuedEncryptedContent();
    expect(issued).toBeDefined();
    const input = fake.requests[1]!.body.input as any[];
    const reasoning = input.find((item) => item.type === 'reasoning');
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      id: issued!.itemId,
      encrypted_content: issued!.encryptedContent,
      summary: [{ type: 'summary_text', text: 'I should look up the weather for Paris.' }],
    });
    expect(input.some((item) => item.type === 'item_reference')).toBe(false);
  });
});

describe('OpenAI Responses fake: streaming wire shape', () => {
  it('streams reasoning, text and a call as the documented event sequence', async () => {
    fake = await start(
      () => ({
        reasoning: 'Think first.',
        text: 'Looking it up.',
        calls: [{ name: 'weather', arguments: { city: 'Paris' } }],
        usage: { inputTokens: 40, outputTokens: 30, cachedInputTokens: 8, reasoningTokens: 16 },
      }),
      { chunkSize: 100 },
    );
    const response = await postRaw(
      `${fake.baseURL}/responses`,
      {
        model: 'gpt-5-mini',
        input: 'Weather in Paris?',
        stream: true,
        reasoning: { summary: 'auto' },
        include: ['reasoning.encrypted_content'],
      },
      { authorization: 'Bearer test' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const raw = await response.text();
    const blocks = raw.trim().split('\n\n');
    const events = blocks.map((block) => {
      const [eventLine, dataLine, ...rest] = block.split('\n');
      expect(rest).toEqual([]);
      const data = JSON.parse(dataLine!.replace(/^data: /, ''));
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });

    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((e) => e.output_index)).toEqual([
      undefined,
      undefined,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      1,
      1,
      1,
      1,
      1,
      2,
      2,
      2,
      2,
      undefined,
    ]);

    const reasoningItem = events[7].item;
    expect(reasoningItem.id).toMatch(/^rs_/);
    expect(reasoningItem.summary).toEqual([{ type: 'summary_text', text: 'Think first.' }]);
    expect(reasoningItem.encrypted_content).toBe(fake.issuedEncryptedContent()[0]!.encryptedContent);
    expect(events[10]).toMatchObject({ delta: 'Looking it up.', item_id: expect.stringMatching(/^msg_/) });
    expect(events[14].item).toMatchObject({
      type: 'function_call',
      status: 'in_progress',
      arguments: '',
      name: 'weather',
    });
    expect(events[14].item.id).toMatch(/^fc_/);
    expect(events[14].item.call_id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(events[16].arguments).toBe('{"city":"Paris"}');

    const completed = events[18].response;
    expect(completed.status).toBe('completed');
    expect(completed.output.map((item: any) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(completed.usage).toEqual({
      input_tokens: 40,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 16 },
      total_tokens: 70,
    });
    expect(events[0].response).toMatchObject({ id: completed.id, status: 'in_progress', output: [], usage: null });
  });

  it('leaves the reasoning item out for non-reasoning models and omits the summary when not requested', async () => {
    fake = await start(() => ({ reasoning: 'hidden', text: 'Hello.' }));
    const plain = await post({ model: 'gpt-4.1', input: 'hi' });
    expect(plain.body.output.map((item: any) => item.type)).toEqual(['message']);
    const noSummary = await post({ model: 'gpt-5-mini', input: 'hi' });
    expect(noSummary.body.output[0]).toMatchObject({ type: 'reasoning', summary: [] });
    expect(noSummary.body.output[0].encrypted_content).toBeUndefined();
  });
});
