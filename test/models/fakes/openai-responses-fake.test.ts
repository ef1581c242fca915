import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { cityTool, closedAfterEach, postJson, postRaw, streamToolLoop } from './fake-test-kit.ts';
import type { ProviderOptions } from './fake-test-kit.ts';
import { startOpenAIResponsesFake } from './openai-responses-fake.ts';
import type { OpenAIResponsesFake } from './openai-responses-fake.ts';
import type { ModelScript } from './provider-fake.ts';

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

/** One stored (or unstored) non-streaming turn that reasons, writes text, and calls a tool. */
async function firstTurn(extra: Record<string, unknown> = {}) {
  const { status, body } = await post({
    model: 'gpt-5-mini',
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] }],
    tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: {} }, strict: false }],
    reasoning: { effort: 'low', summary: 'auto' },
    ...extra,
  });
  expect(status).toBe(200);
  const [reasoning, message, call] = body.output as any[];
  expect([reasoning.type, message.type, call.type]).toEqual(['reasoning', 'message', 'function_call']);
  return { reasoning, message, call };
}

const user = { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] };

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

describe('OpenAI Responses fake: rule violations', () => {
  it('refuses a request without a bearer key, and a wrong key when one is configured', async () => {
    fake = await start(() => ({ text: 'hi' }), { apiKey: 'sk-right-key-1234' });
    const missing = await post({ model: 'gpt-5-mini', input: 'hi' }, {});
    expect(missing.status).toBe(401);
    expect(missing.body.error.message).toMatch(/^You didn't provide an API key\./);
    expect(missing.body.error.type).toBe('invalid_request_error');

    const wrong = await post({ model: 'gpt-5-mini', input: 'hi' }, { authorization: 'Bearer sk-wrong-key-9999' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_api_key');
    expect(wrong.body.error.message).toMatch(/^Incorrect API key provided: sk-\*+9999\./);
    expect(fake.rejections).toHaveLength(2);
  });

  it('refuses a request without model or input', async () => {
    fake = await start(() => ({ text: 'hi' }));
    const noModel = await post({ input: 'hi' });
    expect(noModel.status).toBe(400);
    expect(noModel.body.error).toEqual({
      message: "Missing required parameter: 'model'.",
      type: 'invalid_request_error',
      param: 'model',
      code: 'missing_required_parameter',
    });
    const noInput = await post({ model: 'gpt-5-mini' });
    expect(noInput.status).toBe(400);
    expect(noInput.body.error.message).toBe("Missing required parameter: 'input'.");
  });

  it('refuses a function call without its output, and an output without its call', async () => {
    fake = await start(() => ({ text: 'hi' }));
    const call = { type: 'function_call', call_id: 'call_abc', name: 'weather', arguments: '{}' };
    const noOutput = await post({ model: 'gpt-4.1', input: [user, call] });
    expect(noOutput.status).toBe(400);
    expect(noOutput.body.error).toEqual({
      message: 'No tool output found for function call call_abc.',
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });

    const orphan = { type: 'function_call_output', call_id: 'call_xyz', output: 'sunny' };
    const noCall = await post({ model: 'gpt-4.1', input: [user, orphan] });
    expect(noCall.status).toBe(400);
    expect(noCall.body.error.message).toBe('No tool call found for function call output with call_id call_xyz.');

    // Parallel calls: answering only one of them is refused too.
    const second = { ...call, call_id: 'call_def' };
    const partial = await post({
      model: 'gpt-4.1',
      input: [user, call, second, { type: 'function_call_output', call_id: 'call_abc', output: 'x' }],
    });
    expect(partial.status).toBe(400);
    expect(partial.body.error.message).toBe('No tool output found for function call call_def.');
  });

  it('refuses a reasoning item without its following item, and a call by id without its reasoning', async () => {
    fake = await start(() => ({
      reasoning: 'think',
      text: 'Checking.',
      calls: [{ name: 'weather', arguments: { city: 'Paris' } }],
    }));
    const { reasoning, message, call } = await firstTurn();
    const output = { type: 'function_call_output', call_id: call.call_id, output: 'rain' };

    const valid = await post({
      model: 'gpt-5-mini',
      input: [
        user,
        { type: 'item_reference', id: reasoning.id },
        { type: 'item_reference', id: message.id },
        { type: 'item_reference', id: call.id },
        output,
      ],
    });
    expect(valid.status).toBe(200);

    const lonelyReasoning = await post({
      model: 'gpt-5-mini',
      input: [user, { type: 'item_reference', id: reasoning.id }, { role: 'user', content: 'and Rome?' }],
    });
    expect(lonelyReasoning.status).toBe(400);
    expect(lonelyReasoning.body.error).toEqual({
      message: `Item '${reasoning.id}' of type 'reasoning' was provided without its required following item.`,
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });

    const messageWithoutReasoning = await post({
      model: 'gpt-5-mini',
      input: [user, { type: 'item_reference', id: message.id }, { type: 'item_reference', id: call.id }, output],
    });
    expect(messageWithoutReasoning.status).toBe(400);
    expect(messageWithoutReasoning.body.error.message).toBe(
      `Item '${message.id}' of type 'message' was provided without its required 'reasoning' item: '${reasoning.id}'.`,
    );
  });

  it('refuses a function_call sent by id without the reasoning item it followed', async () => {
    fake = await start(() => ({
      reasoning: 'think',
      calls: [{ name: 'weather', arguments: { city: 'Paris' } }],
    }));
    const { status, body } = await post({ model: 'o4-mini', input: 'Weather in Paris?' });
    expect(status).toBe(200);
    const [reasoning, call] = body.output as any[];
    const output = { type: 'function_call_output', call_id: call.call_id, output: 'rain' };

    const missing = await post({ model: 'o4-mini', input: [user, { type: 'item_reference', id: call.id }, output] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe(
      `Item '${call.id}' of type 'function_call' was provided without its required 'reasoning' item: '${reasoning.id}'.`,
    );
    const byValueWithId = await post({ model: 'o4-mini', input: [user, call, output] });
    expect(byValueWithId.status).toBe(400);
    expect(byValueWithId.body.error.message).toContain("without its required 'reasoning' item");
  });

  it('refuses references to unknown items, and to items of an unstored response', async () => {
    fake = await start(() => ({ reasoning: 'think', text: 'Rain.' }));
    const unknown = await post({ model: 'gpt-5-mini', input: [user, { type: 'item_reference', id: 'rs_nope' }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({
      message: "Item with id 'rs_nope' not found.",
      type: 'invalid_request_error',
      param: 'input',
      code: null,
    });

    const { status, body } = await post({ model: 'gpt-5-mini', input: 'hi', store: false });
    expect(status).toBe(200);
    const [reasoning, message] = body.output as any[];
    expect(reasoning.encrypted_content).toBeUndefined();
    const notPersisted = await post({
      model: 'gpt-5-mini',
      store: false,
      input: [user, { type: 'item_reference', id: reasoning.id }, { type: 'item_reference', id: message.id }],
    });
    expect(notPersisted.status).toBe(404);
    expect(notPersisted.body.error.message).toBe(
      `Item with id '${reasoning.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to ` +
        `true, or remove this item from your input.`,
    );

    // By value but without encrypted content, the reasoning item is a reference in disguise.
    const byIdOnly = await post({
      model: 'gpt-5-mini',
      store: false,
      input: [user, { type: 'reasoning', id: reasoning.id, summary: [] }, { role: 'assistant', content: 'Rain.' }],
    });
    expect(byIdOnly.status).toBe(404);
    expect(byIdOnly.body.error.message).toContain('Items are not persisted');
  });

  it('refuses encrypted reasoning content it did not mint, or that was altered', async () => {
    fake = await start(() => ({
      reasoning: 'secret plan',
      calls: [{ name: 'weather', arguments: { city: 'Paris' } }],
    }));
    const { status, body } = await post({
      model: 'gpt-5-mini',
      input: 'Weather in Paris?',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(status).toBe(200);
    const [reasoning, call] = body.output as any[];
    expect(reasoning.encrypted_content).toMatch(/^gAAAAA/);
    expect(fake.issuedEncryptedContent()).toEqual([
      { itemId: reasoning.id, encryptedContent: reasoning.encrypted_content, reasoning: 'secret plan' },
    ]);
    const followUp = (reasoningItem: unknown) =>
      post({
        model: 'gpt-5-mini',
        store: false,
        include: ['reasoning.encrypted_content'],
        input: [
          user,
          reasoningItem,
          { type: 'function_call', call_id: call.call_id, name: 'weather', arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: 'rain' },
        ],
      });

    const ok = await followUp({
      type: 'reasoning',
      id: reasoning.id,
      encrypted_content: reasoning.encrypted_content,
      summary: [],
    });
    expect(ok.status).toBe(200);

    const token = reasoning.encrypted_content as string;
    const altered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    const tampered = await followUp({ type: 'reasoning', id: reasoning.id, encrypted_content: altered, summary: [] });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error).toEqual({
      message: `The encrypted content for item ${reasoning.id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_encrypted_content',
    });

    const anonymous = await followUp({ type: 'reasoning', encrypted_content: altered, summary: [] });
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.error.message).toBe(
      `The encrypted content ${altered.slice(0, 4)}...${altered.slice(-4)} could not be verified.`,
    );

    // Genuine content under another item's id does not verify either.
    const swapped = await followUp({ type: 'reasoning', id: 'rs_other', encrypted_content: token, summary: [] });
    expect(swapped.status).toBe(400);
    expect(swapped.body.error.code).toBe('invalid_encrypted_content');
  });

  it('refuses sampling parameters on reasoning models, and reasoning on other models', async () => {
    fake = await start(() => ({ text: 'hi' }));
    const temperature = await post({ model: 'gpt-5-mini', input: 'hi', temperature: 0.2 });
    expect(temperature.status).toBe(400);
    expect(temperature.body.error).toEqual({
      message: "Unsupported parameter: 'temperature' is not supported with this model.",
      type: 'invalid_request_error',
      param: 'temperature',
      code: null,
    });
    const reasoning = await post({ model: 'gpt-4.1', input: 'hi', reasoning: { effort: 'low' } });
    expect(reasoning.status).toBe(400);
    expect(reasoning.body.error.message).toBe(
      "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
    );
  });

  it('follows previous_response_id chains and refuses unknown ones', async () => {
    fake = await start((view) =>
      view.toolResults.length > 0
        ? { text: 'It rains.' }
        : { reasoning: 'r', calls: [{ name: 'weather', arguments: {} }] },
    );
    const first = await post({ model: 'gpt-5-mini', input: 'Weather?' });
    const call = (first.body.output as any[])[1];
    const next = await post({
      model: 'gpt-5-mini',
      previous_response_id: first.body.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'rain' }],
    });
    expect(next.status).toBe(200);
    expect(next.body.output[0].content[0].text).toBe('It rains.');

    const unanswered = await post({ model: 'gpt-5-mini', previous_response_id: first.body.id, input: 'and now?' });
    expect(unanswered.status).toBe(400);
    expect(unanswered.body.error.message).toBe(`No tool output found for function call ${call.call_id}.`);

    const missing = await post({ model: 'gpt-5-mini', previous_response_id: 'resp_gone', input: 'hi' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      message: "Previous response with id 'resp_gone' not found.",
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
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
