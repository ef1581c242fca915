import { APICallError, RetryError, generateText, jsonSchema, streamText, tool } from 'ai';
import type { ModelMessage, ToolResultPart } from 'ai';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ScriptedLanguageModel } from '../../src/models/scripted/scripted-model.ts';
import { parseScriptedProgram } from '../../src/models/scripted/scripted-program.ts';

const DEMO = `
rules:
  - when: { user: "refund" }
    call: { tool: request_approval, arguments: { action: refund, amount: 500 } }
  - when: { user: "weather" }
    calls:
      - { tool: get_weather, arguments: { city: SF } }
      - { tool: get_weather, arguments: { city: NYC } }
  - when: { tool_result: request_approval }
    say: "The refund has been approved by {{result.approved_by}}{{result.missing.field}}."
  - when: { tool_error: true }
    say: "Sorry, that failed: {{result}}"
  - when: { tool_result: get_weather }
    say: "Weather: {{result}}"
  - when: { user: "flaky" }
    fail: { status: 503, message: "upstream overloaded", times: 2 }
  - when: { user: "broken" }
    fail: { status: 500, message: "always broken" }
  - when: { user: "re:^echo\\\\b" }
    say: "Echo: {{user}}"
  - say: "I can help with refunds."
`;

const tools = {
  request_approval: tool({
    description: 'Ask a human to approve an action',
    inputSchema: jsonSchema({
      type: 'object',
      properties: { action: { type: 'string' }, amount: { type: 'number' } },
      required: ['action', 'amount'],
    }),
  }),
  get_weather: tool({
    description: 'Get the weather for a city',
    inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  }),
};

function demoModel(): ScriptedLanguageModel {
  return new ScriptedLanguageModel('demo', parseScriptedProgram(DEMO, 'demo'));
}

function afterToolCall(toolName: string, output: ToolResultPart['output']): ModelMessage[] {
  return [
    { role: 'user', content: 'please do it' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName, input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName, output }] },
  ];
}

async function collect(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

describe('scripted model with a YAML program, through the AI SDK', () => {
  it('generateText: a `call` rule produces a tool call with finish reason tool-calls', async () => {
    const result = await generateText({ model: demoModel(), prompt: 'I want a REFUND please', tools });

    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({
      toolName: 'request_approval',
      input: { action: 'refund', amount: 500 },
    });
    expect(result.toolCalls[0]!.toolCallId).toMatch(/^scripted_call_\d+$/);
    expect(result.text).toBe('');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it('streamText: a `calls` rule streams parallel tool calls with chunked input', async () => {
    const result = streamText({ model: demoModel(), prompt: "what's the weather?", tools });
    const types: string[] = [];
    const deltasById = new Map<string, string[]>();
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === 'tool-input-delta') deltasById.set(part.id, [...(deltasById.get(part.id) ?? []), part.delta]);
    }

    const toolCalls = await result.toolCalls;
    expect(toolCalls.map((call) => call.input)).toEqual([{ city: 'SF' }, { city: 'NYC' }]);
    expect(new Set(toolCalls.map((call) => call.toolCallId)).size).toBe(2);
    for (const call of toolCalls) {
      const deltas = deltasById.get(call.toolCallId) ?? [];
      expect(deltas.length).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(deltas.join(''))).toEqual(call.input);
    }
    expect(types.filter((type) => type === 'tool-input-start')).toHaveLength(2);
    expect(types.indexOf('tool-input-end')).toBeLessThan(types.indexOf('tool-call'));
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('doStream emits stream-start, word deltas, text-end and finish in order', async () => {
    const model = demoModel();
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi there' }] }],
    });
    const parts = await collect(stream);

    expect(parts[0]).toEqual({ type: 'stream-start', warnings: [] });
    const types = parts.map((part) => part.type);
    expect(types.slice(-1)).toEqual(['finish']);
    const start = types.indexOf('text-start');
    const end = types.indexOf('text-end');
    expect(start).toBeGreaterThan(0);
    const deltas = parts.slice(start + 1, end);
    expect(deltas.every((part) => part.type === 'text-delta')).toBe(true);
    expect(deltas).toHaveLength(5);
    expect(deltas.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('')).toBe(
      'I can help with refunds.',
    );
    const finish = parts.at(-1);
    expect(finish).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 2 }, outputTokens: { total: 5 } },
    });
  });

  it("doStream: an abort while the stream is read ends it at the next read, with the signal's reason", async () => {
    const model = demoModel();
    const controller = new AbortController();
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi there' }] }],
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    expect((await reader.read()).value).toEqual({ type: 'stream-start', warnings: [] });
    const reason = new Error('the turn was cancelled');
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
  });

  it('doStream: a stream read to its end leaves no listener on the signal, however many steps share it', async () => {
    const model = demoModel();
    const controller = new AbortController();
    for (let step = 0; step < 20; step++) {
      const { stream } = await model.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi there' }] }],
        abortSignal: controller.signal,
      });
      expect((await collect(stream)).at(-1)?.type).toBe('finish');
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // A stream the consumer stops reading (cancels) lets go of the signal too.
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi there' }] }],
      abortSignal: controller.signal,
    });
    await stream.cancel();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('doStream for a tool call: tool-input-start, 2+ deltas, tool-input-end, tool-call, finish', async () => {
    const { stream } = await demoModel().doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'refund' }] }],
    });
    const parts = await collect(stream);
    expect(parts.map((part) => part.type)).toEqual([
      'stream-start',
      'response-metadata',
      'tool-input-start',
      ...parts.filter((part) => part.type === 'tool-input-delta').map(() => 'tool-input-delta'),
      'tool-input-end',
      'tool-call',
      'finish',
    ]);
    expect(parts.filter((part) => part.type === 'tool-input-delta').length).toBeGreaterThanOrEqual(2);
    expect(parts.at(-1)).toMatchObject({ finishReason: { unified: 'tool-calls' } });
  });

  it('templates: {{result.path}} reads JSON results, missing paths render empty', async () => {
    const result = await generateText({
      model: demoModel(),
      messages: afterToolCall('request_approval', { type: 'json', value: { approved: true, approved_by: 'alice' } }),
      tools,
    });
    expect(result.text).toBe('The refund has been approved by alice.');
    expect(result.finishReason).toBe('stop');
  });

  it('templates: {{result}} renders the error text for a tool_error rule', async () => {
    const result = await generateText({
      model: demoModel(),
      messages: afterToolCall('request_approval', { type: 'error-text', value: 'Order not found' }),
      tools,
    });
    expect(result.text).toBe('Sorry, that failed: Order not found');
  });

  it('templates: {{result}} renders a text result; {{user}} renders the last user text; re: rules', async () => {
    const weather = await generateText({
      model: demoModel(),
      messages: afterToolCall('get_weather', { type: 'text', value: 'sunny, 21C' }),
    });
    expect(weather.text).toBe('Weather: sunny, 21C');

    const echo = await generateText({ model: demoModel(), prompt: 'Echo this back' });
    expect(echo.text).toBe('Echo: Echo this back');
    const notEcho = await generateText({ model: demoModel(), prompt: 'please echo' });
    expect(notEcho.text).toBe('I can help with refunds.');
  });

  it('user rules only match when the last message is a user message', async () => {
    // The user text says "refund", but the last message is a tool result of another tool.
    const result = await generateText({
      model: demoModel(),
      messages: [
        { role: 'user', content: 'refund' },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'other', input: {} }] },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'c1', toolName: 'other', output: { type: 'text', value: 'ok' } },
          ],
        },
      ],
    });
    expect(result.toolCalls).toHaveLength(0);
    expect(result.text).toBe('I can help with refunds.');
  });

  it('a fail rule fails `times` times, the AI SDK retries, then the next rule answers', async () => {
    const model = demoModel();
    const result = await generateText({ model, prompt: 'this is flaky', maxRetries: 2 });
    expect(result.text).toBe('I can help with refunds.');

    // The counter is per model instance: the rule is exhausted now, so no failure at all.
    const again = await generateText({ model, prompt: 'this is flaky', maxRetries: 0 });
    expect(again.text).toBe('I can help with refunds.');
  });

  it('a fail rule with too few retries surfaces a RetryError carrying the APICallError', async () => {
    const error = await generateText({ model: demoModel(), prompt: 'flaky', maxRetries: 1 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(RetryError.isInstance(error)).toBe(true);
    const lastError = (error as RetryError).lastError;
    expect(APICallError.isInstance(lastError)).toBe(true);
    expect(lastError).toMatchObject({ statusCode: 503, isRetryable: true, message: 'upstream overloaded' });
  });

  it('with maxRetries 0 the APICallError itself is thrown', async () => {
    const error = await generateText({ model: demoModel(), prompt: 'broken', maxRetries: 0 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(500);
  });

  it('streamText retries a failing doStream and then streams the answer', async () => {
    const result = streamText({ model: demoModel(), prompt: 'flaky stream', maxRetries: 2 });
    expect(await result.text).toBe('I can help with refunds.');
  });

  it('a persistent failure reaches streamText as an error part', async () => {
    const result = streamText({ model: demoModel(), prompt: 'broken', maxRetries: 1, onError: () => {} });
    const errors: unknown[] = [];
    for await (const part of result.fullStream) if (part.type === 'error') errors.push(part.error);
    expect(errors).toHaveLength(1);
    expect(RetryError.isInstance(errors[0])).toBe(true);
  });

  it('call rules are skipped under toolChoice none; parallel calls are cut to one when forbidden', async () => {
    const none = await generateText({ model: demoModel(), prompt: 'refund', tools, toolChoice: 'none' });
    expect(none.toolCalls).toHaveLength(0);
    expect(none.text).toBe('I can help with refunds.');

    const single = await generateText({
      model: demoModel(),
      prompt: 'weather',
      tools,
      providerOptions: { scripted: { parallelToolCalls: false } },
    });
    expect(single.toolCalls.map((call) => call.input)).toEqual([{ city: 'SF' }]);
  });

  it('answers "(scripted NAME: no rule matched)" when nothing matches', async () => {
    const model = new ScriptedLanguageModel(
      'strict',
      parseScriptedProgram({ rules: [{ when: { user: 'x' }, say: 'y' }] }, 'strict'),
    );
    const result = await generateText({ model, prompt: 'hello' });
    expect(result.text).toBe('(scripted strict: no rule matched)');
  });

  it('supports when: { any: true } and templated call arguments', async () => {
    const model = new ScriptedLanguageModel(
      'search',
      parseScriptedProgram(
        `rules:\n  - when: { any: true }\n    call: { tool: search, arguments: { query: "{{user}}" } }\n`,
        'search',
      ),
    );
    const result = await generateText({
      model,
      prompt: 'red shoes',
      tools: { search: tool({ inputSchema: jsonSchema({ type: 'object' }) }) },
    });
    expect(result.toolCalls[0]?.input).toEqual({ query: 'red shoes' });
  });
});

describe('parseScriptedProgram errors', () => {
  const parseError = (source: unknown): string => {
    try {
      parseScriptedProgram(source, 'broken-demo');
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected parseScriptedProgram to throw');
  };

  it('names the program, the rule index and the field for a wrong type', () => {
    const message = parseError(`
rules:
  - say: ok
  - when: { user: 42 }
    say: hi
`);
    expect(message).toContain('"broken-demo"');
    expect(message).toContain('rule 1');
    expect(message).toContain('when.user');
  });

  it('reports unknown fields by name', () => {
    const message = parseError({ rules: [{ say: 'a' }, { say: 'b' }, { sey: 'typo' }] });
    expect(message).toMatch(/rule 2, field "sey"/);
  });

  it('requires exactly one action per rule', () => {
    expect(parseError({ rules: [{ when: { any: true } }] })).toMatch(
      /rule 0: .*exactly one of the fields "say", "call", "calls", "fail".*none/,
    );
    expect(parseError({ rules: [{ say: 'a', call: { tool: 't' } }] })).toMatch(/rule 0: .*found: say, call/);
  });

  it('validates nested fields, regexes and template placeholders', () => {
    expect(parseError({ rules: [{ call: { arguments: {} } }] })).toMatch(/rule 0, field "call.tool"/);
    expect(parseError({ rules: [{ fail: { status: 200, message: 'x' } }] })).toMatch(/rule 0, field "fail.status"/);
    expect(parseError({ rules: [{ when: { user: 're:(' }, say: 'x' }] })).toMatch(
      /rule 0, field "when.user": invalid regular expression/,
    );
    expect(parseError({ rules: [{ say: 'hi {{usr}}' }] })).toMatch(
      /rule 0, field "say": unknown placeholder "\{\{usr\}\}"/,
    );
  });

  it('reports YAML syntax errors and a missing rules list', () => {
    expect(parseError('rules: [')).toMatch(/"broken-demo": YAML syntax error/);
    expect(parseError('description: nothing')).toMatch(/field "rules"/);
  });
});
