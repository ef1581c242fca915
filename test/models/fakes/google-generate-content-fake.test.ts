import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { closedAfterEach, postRaw, streamToolLoop } from './fake-test-kit.ts';
import {
  oneCallScript,
  post,
  recordOneCallLoop,
  runWeatherLoop,
  thinking,
  weatherTool,
} from './google-fake-test-kit.ts';
import { googleErrorMessages, startGoogleGenerateContentFake } from './google-generate-content-fake.ts';
import type { ScriptView } from './provider-fake.ts';

// The rule violations are tested in google-generate-content-rules.test.ts.

const start = closedAfterEach(startGoogleGenerateContentFake);

describe('Gemini generateContent fake: the AI SDK loop', () => {
  it('runs reasoning + a call + text, and the follow-up echoes the signature exactly', async () => {
    const { fake, views, calls, text, reasoning, followUp } = await recordOneCallLoop(start);

    expect(text).toBe('Here it is: Paris: sunny, 21°C');
    expect(reasoning).toBe('The user wants the weather; call get_weather.');
    expect(calls).toEqual(['Paris']);
    expect(fake.rejections).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-3-flash:streamGenerateContent?alt=sse');
    expect(fake.requests[0]!.headers['x-goog-api-key']).toBe('test');

    // What the script saw.
    expect(views[0]).toMatchObject({
      model: 'gemini-3-flash',
      requestIndex: 0,
      tools: ['get_weather'],
      lastUserText: 'Weather in Paris?',
      toolResults: [],
      reasoningRequested: true,
    });
    expect(views[1]).toMatchObject({
      requestIndex: 1,
      lastUserText: null,
      toolResults: [
        {
          name: 'get_weather',
          output: 'Paris: sunny, 21°C',
          isError: false,
          mediaTypes: [],
          callId: expect.any(String),
        },
      ],
    });

    // The signature minted on the call came back, unchanged, on the same functionCall part.
    const [issued] = fake.issuedSignatures();
    expect(issued).toMatchObject({ kind: 'functionCall', call: { name: 'get_weather', args: { city: 'Paris' } } });
    const modelTurn = followUp.contents[1];
    expect(modelTurn.role).toBe('model');
    const callPart = modelTurn.parts.find((part: any) => part.functionCall);
    expect(callPart).toMatchObject({ functionCall: { name: 'get_weather', args: { city: 'Paris' } } });
    expect(callPart.thoughtSignature).toBe(issued!.signature);
    expect(fake.isIssuedSignature(callPart.thoughtSignature)).toBe(true);
    // The reasoning went back as a thought part.
    expect(modelTurn.parts[0]).toEqual({ text: 'The user wants the weather; call get_weather.', thought: true });
    expect(followUp.contents[2].parts[0].functionResponse).toMatchObject({
      name: 'get_weather',
      response: { name: 'get_weather', content: 'Paris: sunny, 21°C' },
    });
  });

  it('runs two parallel calls: one signature on the first call, both results in one turn', async () => {
    const fake = await start((view) =>
      view.toolResults.length === 0
        ? {
            reasoning: 'Two cities, two calls.',
            calls: [
              { name: 'get_weather', arguments: { city: 'Paris' } },
              { name: 'get_weather', arguments: { city: 'Tokyo' } },
            ],
          }
        : { text: view.toolResults.map((r) => r.output).join(' | ') },
    );
    const calls: string[] = [];
    const result = runWeatherLoop(fake, 'Weather in Paris and Tokyo?', calls, thinking);

    expect(await result.text).toBe('Paris: sunny, 21°C | Tokyo: sunny, 21°C');
    expect(calls.sort()).toEqual(['Paris', 'Tokyo']);
    expect(fake.rejections).toEqual([]);
    const issued = fake.issuedSignatures().filter((s) => s.kind === 'functionCall');
    expect(issued).toHaveLength(1);
    expect(issued[0]!.call).toEqual({ name: 'get_weather', args: { city: 'Paris' } });

    const followUp = fake.requests[1]!.body;
    const callParts = followUp.contents[1].parts.filter((part: any) => part.functionCall);
    expect(callParts).toHaveLength(2);
    expect(callParts[0].thoughtSignature).toBe(issued[0]!.signature);
    expect(callParts[1].thoughtSignature).toBeUndefined();
    expect(followUp.contents).toHaveLength(3);
    expect(followUp.contents[2].parts.map((part: any) => part.functionResponse?.name)).toEqual([
      'get_weather',
      'get_weather',
    ]);
  });

  it('refuses a follow-up whose own call lost its signature, even with the SDK-injected dummy', async () => {
    const fake = await start(oneCallScript);
    const google = createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'test' });
    const tools = { get_weather: weatherTool([]) };
    const first = streamText({
      model: google('gemini-3-flash'),
      prompt: 'Weather in Paris?',
      tools,
      providerOptions: thinking,
      stopWhen: stepCountIs(1),
    });
    const stepMessages = (await first.response).messages;
    expect(stepMessages.map((m) => m.role)).toEqual(['assistant', 'tool']);

    // Baton "persists" the assistant message but drops providerOptions.google.thoughtSignature.
    const stripped = structuredClone(stepMessages).map((message): ModelMessage => {
      if (message.role !== 'assistant' || typeof message.content === 'string') return message;
      const content = message.content.map((part) => {
        const copy = { ...part };
        delete (copy as { providerOptions?: unknown }).providerOptions;
        return copy;
      });
      return { ...message, content };
    });
    const errors: unknown[] = [];
    const second = streamText({
      model: google('gemini-3-flash'),
      messages: [{ role: 'user', content: 'Weather in Paris?' }, ...stripped],
      tools,
      providerOptions: thinking,
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    await second.consumeStream();

    const sent = fake.requests[1]!.body;
    const callPart = sent.contents[1].parts.find((part: any) => part.functionCall);
    expect(callPart.thoughtSignature).toBe('skip_thought_signature_validator');
    const message = googleErrorMessages.missingThoughtSignature('get_weather', 2);
    expect(fake.rejections).toHaveLength(1);
    expect(fake.rejections[0]).toMatchObject({
      status: 400,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT', message } },
    });
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe(message);

    // The same history with the signature kept is accepted.
    const third = streamText({
      model: google('gemini-3-flash'),
      messages: [{ role: 'user', content: 'Weather in Paris?' }, ...stepMessages],
      tools,
      providerOptions: thinking,
      maxRetries: 0,
    });
    expect(await third.text).toBe('Here it is: Paris: sunny, 21°C');
    expect(fake.rejections).toHaveLength(1);
  });

  it('signs a text-only answer on its last text part and accepts it back in the next user turn', async () => {
    const fake = await start((view) => ({ text: `echo: ${view.lastUserText}` }));
    const google = createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'test' });
    const first = streamText({ model: google('gemini-3-flash'), prompt: 'hello' });
    expect(await first.text).toBe('echo: hello');
    const [issued] = fake.issuedSignatures();
    expect(issued).toMatchObject({ kind: 'text', text: 'echo: hello' });

    const second = streamText({
      model: google('gemini-3-flash'),
      messages: [
        { role: 'user', content: 'hello' },
        ...(await first.response).messages,
        { role: 'user', content: 'again' },
      ],
    });
    expect(await second.text).toBe('echo: again');
    expect(fake.rejections).toEqual([]);
    expect(fake.requests[1]!.body.contents[1].parts).toEqual([
      { text: 'echo: hello', thoughtSignature: issued!.signature },
    ]);
  });

  it('mints functionCall ids when asked, and the SDK answers with the same id', async () => {
    const views: ScriptView[] = [];
    const fake = await start(
      (view) => {
        views.push(view);
        return oneCallScript(view);
      },
      { functionCallIds: 'always' },
    );
    const result = runWeatherLoop(fake, 'Weather in Paris?', []);
    await result.text;
    const [issued] = fake.issuedSignatures();
    const id = issued!.call!.id!;
    expect(id).toMatch(/^[a-z0-9]{8}$/);
    const followUp = fake.requests[1]!.body;
    expect(followUp.contents[1].parts[0]).toEqual({
      functionCall: { id, name: 'get_weather', args: { city: 'Paris' } },
      thoughtSignature: issued!.signature,
    });
    expect(followUp.contents[2].parts[0].functionResponse.id).toBe(id);
    expect(views[1]!.toolResults[0]!.callId).toBe(id);
    expect(fake.rejections).toEqual([]);
  });

  it('answers generateContent (non-streaming) too, with usage in usageMetadata', async () => {
    const fake = await start(() => ({
      reasoning: 'thinking',
      text: 'done',
      usage: { inputTokens: 100, outputTokens: 30, cachedInputTokens: 40, reasoningTokens: 20 },
    }));
    const google = createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'test' });
    const result = await generateText({ model: google('gemini-3-flash'), prompt: 'hi', providerOptions: thinking });

    expect(result.text).toBe('done');
    expect(result.reasoningText).toBe('thinking');
    expect(fake.requests[0]!.path).toBe('/v1beta/models/gemini-3-flash:generateContent');
    expect(result.usage).toMatchObject({
      inputTokens: 100,
      outputTokens: 30,
      reasoningTokens: 20,
      cachedInputTokens: 40,
    });
    expect(result.providerMetadata?.google?.usageMetadata).toMatchObject({
      promptTokenCount: 100,
      candidatesTokenCount: 10,
      thoughtsTokenCount: 20,
      cachedContentTokenCount: 40,
      totalTokenCount: 130,
    });
  });

  it('reads image results of a tool (inlineData inside the functionResponse) as [image]', async () => {
    const views: ScriptView[] = [];
    const fake = await start((view) => {
      views.push(view);
      return view.toolResults.length === 0 ? { calls: [{ name: 'screenshot', arguments: {} }] } : { text: 'I see it.' };
    });
    const google = createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'test' });
    const result = streamToolLoop({
      model: google('gemini-3-flash'),
      prompt: 'Take a screenshot',
      tools: {
        screenshot: tool({
          inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
          execute: async () => 'iVBORw0KGgo=',
          toModelOutput: ({ output }) => ({
            type: 'content',
            value: [
              { type: 'text', text: 'the screen' },
              { type: 'image-data', data: output, mediaType: 'image/png' },
            ],
          }),
        }),
      },
    });
    expect(await result.text).toBe('I see it.');
    expect(fake.rejections).toEqual([]);
    expect(views[1]!.toolResults).toEqual([
      {
        callId: expect.any(String),
        name: 'screenshot',
        output: 'the screen\n[image]',
        isError: false,
        mediaTypes: ['image/png'],
      },
    ]);
  });
});

describe('Gemini generateContent fake: streaming wire shape', () => {
  it('streams thought, text deltas, the calls (signature on the first) and a closing STOP chunk', async () => {
    const fake = await start(() => ({
      reasoning: 'Plan: call both.',
      text: 'Checking both cities.',
      calls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Tokyo' } },
      ],
      usage: { inputTokens: 12, outputTokens: 9, reasoningTokens: 4 },
    }));
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'Weather?' }] }],
      tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object' } }] }],
      generationConfig: { thinkingConfig: { includeThoughts: true } },
    };
    const response = await postRaw(`${fake.baseURL}/models/gemini-3-flash:streamGenerateContent?alt=sse`, body, {
      'x-goog-api-key': 'k',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const raw = await response.text();
    const events = raw
      .split('\r\n\r\n')
      .filter((block) => block !== '')
      .map((block) => {
        expect(block.startsWith('data: ')).toBe(true);
        return JSON.parse(block.slice('data: '.length));
      });

    const parts = events.map((event) => event.candidates[0].content.parts);
    expect(parts).toEqual([
      [{ text: 'Plan: call both.', thought: true }],
      [{ text: 'Checking bo' }],
      [{ text: 'th cities.' }],
      [
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: expect.any(String) },
        { functionCall: { name: 'get_weather', args: { city: 'Tokyo' } } },
      ],
      [{ text: '' }],
    ]);
    expect(parts[3]![0].thoughtSignature).toBe(fake.issuedSignatures()[0]!.signature);
    expect(events.map((event) => event.candidates[0].finishReason)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      'STOP',
    ]);
    for (const event of events) {
      expect(event.candidates[0].content.role).toBe('model');
      expect(event.modelVersion).toBe('gemini-3-flash');
      expect(event.responseId).toBe(events[0].responseId);
      expect(event.usageMetadata).toMatchObject({
        promptTokenCount: 12,
        candidatesTokenCount: 5,
        thoughtsTokenCount: 4,
        totalTokenCount: 21,
      });
    }
  });

  it('omits thought parts when includeThoughts is off, and signs a text-only answer on a closing empty part', async () => {
    const fake = await start(() => ({ reasoning: 'hidden', text: 'Hi!' }));
    const result = await post(fake, { contents: [{ role: 'user', parts: [{ text: 'hello' }] }] });
    const events = result.text
      .split('\r\n\r\n')
      .filter((block) => block !== '')
      .map((block) => JSON.parse(block.slice('data: '.length)));
    expect(events.map((event) => event.candidates[0].content.parts)).toEqual([
      [{ text: 'Hi' }],
      [{ text: '!' }],
      [{ text: '', thoughtSignature: fake.issuedSignatures()[0]!.signature }],
    ]);
    expect(events[2].usageMetadata.thoughtsTokenCount).toBeGreaterThan(0);
  });

  it('answers streamGenerateContent without alt=sse as one JSON array of the same chunks', async () => {
    const fake = await start(() => ({ text: 'Hi!' }));
    const response = await postRaw(
      `${fake.baseURL}/models/gemini-3-flash:streamGenerateContent`,
      { contents: [{ role: 'user', parts: [{ text: 'hello' }] }] },
      { 'x-goog-api-key': 'k' },
    );
    const chunks = (await response.json()) as any[];
    expect(chunks.map((chunk) => chunk.candidates[0].content.parts[0].text)).toEqual(['Hi', '!', '']);
    expect(chunks[2].candidates[0].finishReason).toBe('STOP');
  });
});
