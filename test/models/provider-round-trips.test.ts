import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProvidersConfig } from '../../src/models/model-registry.ts';
import type { ProviderOptions } from '../../src/domain/records.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP, create, weatherClientFunction } from '../server-tools/server-tool-fixtures.ts';
import { startAnthropicMessagesFake } from './fakes/anthropic-messages-fake.ts';
import { startChatCompletionsFake } from './fakes/chat-completions-fake.ts';
import { startGoogleGenerateContentFake } from './fakes/google-generate-content-fake.ts';
import { startOpenAIResponsesFake } from './fakes/openai-responses-fake.ts';
import type { ModelScript, ProviderFake, RecordedRequest } from './fakes/provider-fake.ts';

/**
 * The pause through each provider's real AI SDK adapter, against a local server that enforces
 * that provider's documented rules: one step with reasoning, two parallel client calls and a
 * server call; Baton restarts while the calls are pending; the client answers one with an error
 * and one with an image. The resume must carry back what the provider requires (signatures,
 * reasoning items, encrypted content), or the fake refuses it as the provider would.
 */

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const script: ModelScript = (view) => {
  if (view.toolResults.length > 0) {
    const answers = view.toolResults.map(
      (result) => `${result.output}${result.mediaTypes.length > 0 ? ` [${result.mediaTypes.join(',')}]` : ''}`,
    );
    return {
      reasoning: 'All three answers are in; summing up.',
      text: `Done: ${answers.join(' | ')}`,
      usage: { inputTokens: 120, outputTokens: 40, cachedInputTokens: 100, reasoningTokens: 12 },
    };
  }
  if (view.lastUserText?.includes('weather')) {
    return {
      reasoning: 'Two cities and a price: three calls at once.',
      calls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'lookup_price', arguments: { sku: 'A-1' } },
        { name: 'get_weather', arguments: { city: 'Rome' } },
      ],
    };
  }
  return { text: 'Hello.' };
};

interface Protocol {
  name: string;
  model: string;
  providerOptions?: ProviderOptions;
  start(): Promise<ProviderFake>;
  providers(fake: ProviderFake): ProvidersConfig;
  /** What the provider issued that must come back unchanged on the resume (signatures, item ids…). */
  issued(fake: ProviderFake): string[];
}

const PROTOCOLS: Protocol[] = [
  {
    name: 'Google generateContent (Gemini 3 thought signatures)',
    model: 'google:gemini-3-flash',
    providerOptions: { google: { thinkingConfig: { includeThoughts: true } } },
    start: () => startGoogleGenerateContentFake(script),
    providers: (fake) => ({ google: { baseURL: fake.baseURL, apiKey: 'test-key' } }),
    issued: (fake) =>
      (fake as Awaited<ReturnType<typeof startGoogleGenerateContentFake>>)
        .issuedSignatures()
        .filter((signature) => signature.kind === 'functionCall')
        .map((signature) => signature.signature),
  },
  {
    name: 'Anthropic Messages (extended thinking)',
    model: 'anthropic:claude-sonnet-4-5',
    providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    start: () => startAnthropicMessagesFake(script),
    providers: (fake) => ({ anthropic: { baseURL: fake.baseURL, apiKey: 'test-key' } }),
    issued: (fake) =>
      (fake as Awaited<ReturnType<typeof startAnthropicMessagesFake>>).issuedThinking
        .filter((thinking) => thinking.thinking.startsWith('Two cities'))
        .map((thinking) => thinking.signature),
  },
  {
    name: 'OpenAI Responses (stored reasoning items)',
    model: 'openai:gpt-5-mini',
    providerOptions: { openai: { reasoningSummary: 'auto' } },
    start: () => startOpenAIResponsesFake(script),
    providers: (fake) => ({ openai: { baseURL: fake.baseURL, apiKey: 'test-key' } }),
    issued: (fake) =>
      (fake as Awaited<ReturnType<typeof startOpenAIResponsesFake>>)
        .storedItemIds()
        .filter((id) => id.startsWith('rs_'))
        .slice(0, 1),
  },
  {
    name: 'OpenAI Responses (store: false, encrypted reasoning)',
    model: 'openai:gpt-5-mini',
    providerOptions: { openai: { store: false, reasoningSummary: 'auto' } },
    start: () => startOpenAIResponsesFake(script),
    providers: (fake) => ({ openai: { baseURL: fake.baseURL, apiKey: 'test-key' } }),
    issued: (fake) =>
      (fake as Awaited<ReturnType<typeof startOpenAIResponsesFake>>)
        .issuedEncryptedContent()
        .slice(0, 1)
        .map((issued) => issued.encryptedContent),
  },
  {
    name: 'OpenAI Chat Completions (vLLM-style reasoning_content)',
    model: 'openai-compatible:qwen3',
    start: () => startChatCompletionsFake(script),
    providers: (fake) => ({ 'openai-compatible': { baseURL: fake.baseURL, apiKey: 'test-key' } }),
    issued: (fake) => (fake as Awaited<ReturnType<typeof startChatCompletionsFake>>).issuedToolCallIds(),
  },
];

/** A Baton on a SQLite file, so a second one started on the same file is a restart. */
async function startOn(file: string, providers: ProvidersConfig): Promise<TestBaton> {
  return startTestBaton({ providers }, { store: { kind: 'sqlite', filename: file } });
}

async function setUpDesk(baton: TestBaton, model: string, providerOptions: ProviderOptions | undefined) {
  await create(baton, 'tools?toolId=weather', weatherClientFunction);
  await create(baton, 'tools?toolId=price', {
    jsFunction: {
      name: 'lookup_price',
      description: 'Price of a product.',
      parameters: { type: 'OBJECT', properties: { sku: { type: 'STRING' } }, required: ['sku'] },
      jsCode: 'function lookup_price(args) { return { sku: args.sku, price: 42 }; }',
    },
  });
  await create(baton, 'agents?agentId=desk', {
    displayName: 'Desk',
    instruction: 'Look things up, then answer.',
    modelSettings: { model, ...(providerOptions ? { providerOptions } : {}) },
    tools: [`${APP}/tools/weather`, `${APP}/tools/price`],
  });
}

function requestsAfter(fake: ProviderFake, count: number): RecordedRequest[] {
  return fake.requests.slice(count);
}

describe.each(PROTOCOLS)('the pause through $name', (protocol) => {
  let fake: ProviderFake;
  let dir: string;
  let baton: TestBaton | undefined;

  beforeAll(async () => {
    fake = await protocol.start();
    dir = mkdtempSync(join(tmpdir(), 'baton-provider-'));
    baton = await startOn(join(dir, 'baton.db'), protocol.providers(fake));
    await setUpDesk(baton, protocol.model, protocol.providerOptions);
  });
  afterAll(async () => {
    await baton?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const restart = async () => {
    await baton?.close();
    baton = await startOn(join(dir, 'baton.db'), protocol.providers(fake));
  };

  it('Threads: parallel client calls and a server call pause, survive a restart, and resume with an error and an image result', async () => {
    const thread = (await baton!.request('POST', '/v1/threads', { agent: 'desk' })).body.id;
    const paused = await baton!.request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: 'weather in Paris and Rome, and the price of A-1',
    });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body.choices[0].finish_reason).toBe('tool_use');
    const pending = paused.body.choices[0].message.tool_calls as { id: string; name: string }[];
    expect(pending.map((call) => call.name)).toEqual(['get_weather', 'get_weather']);
    const issued = protocol.issued(fake);
    expect(issued.length).toBeGreaterThan(0);

    await restart();
    const before = fake.requests.length;
    const resumed = await baton!.request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: [
        { type: 'tool_result', tool_call_id: pending[0]!.id, content: 'Paris is unreachable', is_error: true },
        {
          type: 'tool_result',
          tool_call_id: pending[1]!.id,
          content: [
            { type: 'text', text: 'Rome: sunny' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
      ],
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(fake.rejections, JSON.stringify(fake.rejections.map((rejection) => rejection.body))).toEqual([]);
    const text = resumed.body.choices[0].message.content as string;
    expect(text).toMatch(/^Done: /);
    expect(text).toContain('Paris is unreachable');
    expect(text).toContain('Rome: sunny');
    expect(text).toContain('image/png');
    expect(text).toContain('"price":42');

    // What the provider issued came back unchanged, after the restart.
    const resume = JSON.stringify(requestsAfter(fake, before).map((request) => request.body));
    for (const value of issued) expect(resume).toContain(value);

    // Usage adds up the provider's cached and reasoning tokens over the turn's steps.
    expect(resumed.body.usage.cached_input_tokens).toBeGreaterThanOrEqual(100);
    expect(resumed.body.usage.reasoning_tokens).toBeGreaterThanOrEqual(12);

    // The transcript shows the reasoning text, and never a signature or an encrypted blob.
    const messages = await baton!.request('GET', `/v1/threads/${thread}/messages`);
    const transcript = JSON.stringify(messages.body);
    for (const value of issued.filter((value) => !value.startsWith('call_'))) expect(transcript).not.toContain(value);
    const step = (messages.body.data as { tool_calls?: unknown[]; reasoning?: string }[]).find(
      (message) => message.tool_calls?.length === 3,
    );
    expect(step?.reasoning).toContain('Two cities');
  });

  it('Ledger: results one call at a time, with a restart between them (partial results)', async () => {
    const thread = (await baton!.request('POST', '/v1/threads', { agent: 'desk' })).body.id;
    const paused = await baton!.request('POST', `/v1/threads/${thread}/messages`, {
      role: 'user',
      content: 'weather in Paris and Rome, and the price of A-1',
    });
    const [first, second] = paused.body.choices[0].message.tool_calls as { id: string }[];
    const partial = await baton!.request('POST', `/v1/tool-calls/${first!.id}/result`, { content: 'Paris: rain' });
    expect(partial.status, JSON.stringify(partial.body)).toBe(200);
    expect(partial.body.resumed).toBe(false);

    await restart();
    const before = fake.requests.length;
    const last = await baton!.request('POST', `/v1/tool-calls/${second!.id}/result`, { content: 'Rome: sunny' });
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body.resumed).toBe(true);
    expect(fake.rejections, JSON.stringify(fake.rejections.map((rejection) => rejection.body))).toEqual([]);
    const messages = await baton!.request('GET', `/v1/threads/${thread}/messages`);
    const answer = (messages.body.data as { role: string; content: unknown }[]).at(-1);
    expect(answer?.content).toMatch(/^Done: .*Paris: rain.*Rome: sunny/);
    expect(fake.requests.length).toBeGreaterThan(before);
  });

  it('Responses (official openai client): reasoning items, the pause, a restart, and the resume by previous_response_id', async () => {
    const client = new OpenAI({ baseURL: `${baton!.url}/v1`, apiKey: baton!.key, maxRetries: 0 });
    const first = await client.responses.create({
      model: 'desk',
      input: 'weather in Paris and Rome, and the price of A-1',
    });
    const types = first.output.map((item) => item.type as string);
    expect(types[0]).toBe('reasoning');
    expect(types.filter((type) => type === 'function_call')).toHaveLength(2);
    expect(types).toContain('baton:tool_call');
    const reasoning = first.output[0] as { summary: { text: string }[]; encrypted_content?: string | null };
    expect(reasoning.summary[0]?.text).toContain('Two cities');
    expect(reasoning.encrypted_content).toBeUndefined();
    const calls = first.output.filter((item) => item.type === 'function_call') as { call_id: string }[];

    await restart();
    const resumedClient = new OpenAI({ baseURL: `${baton!.url}/v1`, apiKey: baton!.key, maxRetries: 0 });
    const second = await resumedClient.responses.create({
      model: 'desk',
      previous_response_id: first.id,
      input: [
        { type: 'function_call_output', call_id: calls[0]!.call_id, output: 'Paris: rain' },
        {
          type: 'function_call_output',
          call_id: calls[1]!.call_id,
          output: [
            { type: 'input_text', text: 'Rome: sunny' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
          ],
        },
      ],
    });
    expect(fake.rejections, JSON.stringify(fake.rejections.map((rejection) => rejection.body))).toEqual([]);
    expect(second.status).toBe('completed');
    expect(second.output_text).toContain('Paris: rain');
    expect(second.output_text).toContain('image/png');
    expect(second.usage?.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(100);
    expect(second.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThanOrEqual(12);
  });
});

describe('a model switch in mid-conversation', () => {
  let google: Awaited<ReturnType<typeof startGoogleGenerateContentFake>>;
  let anthropic: Awaited<ReturnType<typeof startAnthropicMessagesFake>>;
  let openai: Awaited<ReturnType<typeof startOpenAIResponsesFake>>;
  let baton: TestBaton;

  beforeAll(async () => {
    google = await startGoogleGenerateContentFake(script);
    anthropic = await startAnthropicMessagesFake(script);
    openai = await startOpenAIResponsesFake(script);
    baton = await startTestBaton({
      providers: {
        google: { baseURL: google.baseURL, apiKey: 'k' },
        anthropic: { baseURL: anthropic.baseURL, apiKey: 'k' },
        openai: { baseURL: openai.baseURL, apiKey: 'k' },
      },
    });
    await setUpDesk(baton, 'anthropic:claude-sonnet-4-5', {
      anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } },
      google: { thinkingConfig: { includeThoughts: true } },
    });
  });
  afterAll(async () => {
    await baton?.close();
    await Promise.all([google?.close(), anthropic?.close(), openai?.close()]);
  });

  const switchTo = async (model: string) => {
    const agent = await baton.request('GET', `/v1/${APP}/agents/desk`);
    const patched = await baton.request('PATCH', `/v1/${APP}/agents/desk?updateMask=modelSettings`, {
      ...agent.body,
      modelSettings: { ...agent.body.modelSettings, model },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  };

  it('continues on another provider with the text and calls, and no foreign signature', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'desk' })).body.id;
    const say = async (content: string) => {
      const reply = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body;
    };
    const answerAll = async (paused: { choices: { message: { tool_calls: { id: string }[] } }[] }) => {
      const results = paused.choices[0]!.message.tool_calls.map((call) => ({
        type: 'tool_result',
        tool_call_id: call.id,
        content: 'ok',
      }));
      const reply = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: results });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body;
    };

    // A paused turn keeps the agent version it started with; the switch applies from the next turn.
    const onAnthropic = await answerAll(await say('weather in Paris and Rome, and the price of A-1'));
    expect(onAnthropic.choices[0].message.content).toMatch(/^Done: /);

    // Google continues the conversation: Anthropic's text and calls, none of its signed thinking.
    await switchTo('google:gemini-3-flash');
    const googleBefore = google.requests.length;
    const onGoogle = await answerAll(await say('and the weather again, please'));
    expect(onGoogle.choices[0].message.content).toMatch(/^Done: /);
    const sentToGoogle = JSON.stringify(google.requests.slice(googleBefore).map((request) => request.body));
    expect(sentToGoogle).toContain('Paris');
    expect(anthropic.issuedThinking.length).toBeGreaterThan(0);
    for (const thinking of anthropic.issuedThinking) expect(sentToGoogle).not.toContain(thinking.signature);

    // OpenAI continues it: Google's calls as plain history, none of its thought signatures.
    await switchTo('openai:gpt-5-mini');
    const openaiBefore = openai.requests.length;
    const onOpenAI = await answerAll(await say('once more, please: the weather'));
    expect(onOpenAI.choices[0].message.content).toMatch(/^Done: /);
    const sentToOpenAI = JSON.stringify(openai.requests.slice(openaiBefore).map((request) => request.body));
    expect(sentToOpenAI).toContain('Rome');
    expect(google.issuedSignatures().length).toBeGreaterThan(0);
    for (const signature of google.issuedSignatures()) expect(sentToOpenAI).not.toContain(signature.signature);

    expect([...google.rejections, ...anthropic.rejections, ...openai.rejections]).toEqual([]);
  });
});
