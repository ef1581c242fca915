import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { startAnthropicMessagesFake, type AnthropicMessagesFake } from '../models/fakes/anthropic-messages-fake.ts';
import { startOpenAIResponsesFake, type OpenAIResponsesFake } from '../models/fakes/openai-responses-fake.ts';
import type { ModelScript } from '../models/fakes/provider-fake.ts';

/**
 * Reasoning on the Responses face: `reasoning` items with their summary, streamed before the
 * items they lead to; `encrypted_content` only when the request asks with `include`, and never a
 * signature; a client that replays Baton's reasoning items by value gets the stored reasoning,
 * signatures and all, sent back to the model.
 */

const script: ModelScript = (view) =>
  view.toolResults.length > 0
    ? { reasoning: 'The weather is in.', text: `It is ${view.toolResults[0]?.output ?? '?'}.` }
    : { reasoning: 'I need the weather first.', calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };

const weatherTool = {
  name: 'get_weather',
  description: 'Weather of a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('reasoning items on the Responses face', () => {
  let openaiFake: OpenAIResponsesFake;
  let anthropicFake: AnthropicMessagesFake;
  let baton: TestBaton;
  let client: OpenAI;

  beforeAll(async () => {
    openaiFake = await startOpenAIResponsesFake(script);
    anthropicFake = await startAnthropicMessagesFake(script);
    baton = await startTestBaton({
      providers: {
        openai: { baseURL: openaiFake.baseURL, apiKey: 'k' },
        anthropic: { baseURL: anthropicFake.baseURL, apiKey: 'k' },
      },
      agents: [
        {
          name: 'thinker',
          model: 'openai:gpt-5-mini',
          tools: [weatherTool],
          provider_options: { openai: { store: false, reasoningSummary: 'auto' } },
        },
        {
          name: 'claude',
          model: 'anthropic:claude-sonnet-4-5',
          tools: [weatherTool],
          provider_options: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
        },
      ],
    });
    client = new OpenAI({ baseURL: `${baton.url}/v1`, apiKey: baton.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await baton?.close();
    await Promise.all([openaiFake?.close(), anthropicFake?.close()]);
  });

  it('streams the reasoning item first, with its summary, in the order a later GET shows', async () => {
    const stream = await client.responses.create({ model: 'thinker', input: 'weather in Paris?', stream: true });
    const events: { type: string; output_index?: number; item?: { type: string; id: string } }[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      events.push(event as never);
      if (event.type === 'response.completed') completed = event.response;
    }
    const added = events.filter((event) => event.type === 'response.output_item.added');
    expect(added[0]).toMatchObject({ output_index: 0, item: { type: 'reasoning' } });
    const types = events.map((event) => event.type);
    expect(types).toContain('response.reasoning_summary_part.added');
    const deltas = events.filter((event) => event.type === 'response.reasoning_summary_text.delta') as never[];
    expect(deltas.map((event: { delta: string }) => event.delta).join('')).toBe('I need the weather first.');
    expect(types.indexOf('response.reasoning_summary_text.done')).toBeLessThan(
      types.lastIndexOf('response.output_item.done'),
    );

    const done = events.filter((event) => event.type === 'response.output_item.done');
    const byIndex = [...done].sort((a, b) => (a.output_index ?? 0) - (b.output_index ?? 0)).map((event) => event.item);
    expect(completed?.output.map((item) => [item.type, item.id])).toEqual(
      byIndex.map((item) => [item?.type, item?.id]),
    );
    const fetched = await client.responses.retrieve(completed!.id);
    expect(fetched.output.map((item) => [item.type, item.id])).toEqual(byIndex.map((item) => [item?.type, item?.id]));
  });

  it('shows encrypted_content only when include asks for it, on create and on retrieve', async () => {
    const plain = await client.responses.create({ model: 'thinker', input: 'weather in Paris?' });
    const reasoning = plain.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.type).toBe('reasoning');
    expect(reasoning.summary[0]?.text).toBe('I need the weather first.');
    expect(reasoning).not.toHaveProperty('encrypted_content');

    const asked = await client.responses.create({
      model: 'thinker',
      input: 'weather in Paris?',
      include: ['reasoning.encrypted_content'],
    });
    const issued = openaiFake.issuedEncryptedContent().map((entry) => entry.encryptedContent);
    const encrypted = (asked.output[0] as OpenAI.Responses.ResponseReasoningItem).encrypted_content;
    expect(encrypted).toBe(issued[issued.length - 1]);

    const retrieved = await client.responses.retrieve(asked.id, { include: ['reasoning.encrypted_content'] });
    expect((retrieved.output[0] as OpenAI.Responses.ResponseReasoningItem).encrypted_content).toBe(encrypted);
    const retrievedPlain = await client.responses.retrieve(asked.id);
    expect(retrievedPlain.output[0]).not.toHaveProperty('encrypted_content');
  });

  it('never shows an Anthropic thinking signature, even when include asks', async () => {
    const response = await client.responses.create({
      model: 'claude',
      input: 'weather in Paris?',
      include: ['reasoning.encrypted_content'],
    });
    const reasoning = response.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.type).toBe('reasoning');
    expect(reasoning.summary[0]?.text).toBe('I need the weather first.');
    expect(reasoning.encrypted_content).toBeNull();
    const body = JSON.stringify(response);
    for (const thinking of anthropicFake.issuedThinking) expect(body).not.toContain(thinking.signature);
  });

  it('a client that replays the transcript by value (no previous_response_id) gets its stored reasoning back to the model', async () => {
    const first = await client.responses.create({ model: 'claude', input: 'weather in Paris?' });
    const firstThinking = anthropicFake.issuedThinking[anthropicFake.issuedThinking.length - 1]!;
    const call = first.output.find(
      (item) => item.type === 'function_call',
    ) as OpenAI.Responses.ResponseFunctionToolCall;
    const before = anthropicFake.requests.length;
    const second = await client.responses.create({
      model: 'claude',
      input: [
        { role: 'user', content: 'weather in Paris?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    expect(anthropicFake.rejections).toEqual([]);
    expect(second.status).toBe('completed');
    expect(second.output_text).toBe('It is sunny.');
    // Anthropic refuses a tool-use turn without its signed thinking: it went back from the store.
    const sent = JSON.stringify(anthropicFake.requests.slice(before).map((request) => request.body));
    expect(sent).toContain(firstThinking.signature);
  });

  it('the same replay on OpenAI with store: false sends the encrypted reasoning and the call under its own ids', async () => {
    const first = await client.responses.create({ model: 'thinker', input: 'weather in Paris?' });
    const call = first.output.find(
      (item) => item.type === 'function_call',
    ) as OpenAI.Responses.ResponseFunctionToolCall;
    const before = openaiFake.requests.length;
    const second = await client.responses.create({
      model: 'thinker',
      input: [
        { role: 'user', content: 'weather in Paris?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    expect(openaiFake.rejections).toEqual([]);
    expect(second.output_text).toBe('It is sunny.');
    const issued = openaiFake.issuedEncryptedContent().map((entry) => entry.encryptedContent);
    const sent = JSON.stringify(openaiFake.requests.slice(before).map((request) => request.body));
    expect(issued.some((encrypted) => sent.includes(encrypted))).toBe(true);
  });

  it('passes the request’s reasoning settings to an OpenAI model, over the agent’s', async () => {
    const before = openaiFake.requests.length;
    await client.responses.create({
      model: 'thinker',
      input: 'weather in Paris?',
      reasoning: { effort: 'high', summary: 'detailed' },
    });
    const sent = openaiFake.requests[before]!.body;
    expect(sent.reasoning).toEqual({ effort: 'high', summary: 'detailed' });
  });

  it("drops another system's reasoning items, and refuses a Baton reasoning id from elsewhere as not found", async () => {
    const foreign = await client.responses.create({
      model: 'thinker',
      input: [
        { type: 'reasoning', id: 'rs_0123abcd', summary: [] },
        { role: 'user', content: 'weather in Paris?' },
      ],
    });
    expect(foreign.status).toBe('completed');

    const stale = await baton.request('POST', '/v1/responses', {
      model: 'thinker',
      input: [
        { type: 'reasoning', id: 'rs_AAAAAAAAAAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBB', summary: [] },
        { role: 'user', content: 'weather in Paris?' },
      ],
    });
    expect(stale.status).toBe(400);
    expect(stale.body.error).toMatchObject({ code: 'item_not_found', param: 'input[0]' });
  });
});
