import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { appState, batonOf, getWeatherTool, ledgerRow, WEATHER_QUESTION } from './chat-fixtures.ts';

interface Refusal {
  status: number;
  code: string;
  param: string | null;
  /** Words the message must hold: what is wrong and what to do. */
  says: string[];
}

const user = (content: string) => ({ role: 'user', content });
const assistantCalling = (...ids: string[]) => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({
    id,
    type: 'function',
    function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
  })),
});
const toolResult = (id: string, content = 'sunny') => ({ role: 'tool', tool_call_id: id, content });

/**
 * Bad input on the Chat Completions face: each request is refused with OpenAI's error body
 * (`{"error": {"message", "type", "param", "code"}}`), the right status, the field at fault and
 * what to do, and leaves every conversation, call and agent of the app as it was.
 */
describe('Chat Completions: bad input is refused precisely and changes nothing', () => {
  let server: TestBaton;
  /** A conversation paused on one get_weather call. */
  let paused: { callId: string; conversationId: string };
  /** Two calls of one paused run (Paris and Tokyo). */
  let parallel: { callIds: string[] };

  beforeAll(async () => {
    server = await startTestBaton();
    const first = await server.request('POST', '/v1/chat/completions', {
      model: 'scripted:auto',
      messages: [user(WEATHER_QUESTION)],
      tools: [getWeatherTool],
    });
    expect(first.status).toBe(200);
    paused = {
      callId: first.body.choices[0].message.tool_calls[0].id,
      conversationId: batonOf(first.body).conversation_id,
    };
    const two = await server.request('POST', '/v1/chat/completions', {
      model: 'scripted:auto',
      messages: [user('What is the weather in Paris and in Tokyo?')],
      tools: [getWeatherTool],
    });
    expect(two.body.choices[0].message.tool_calls).toHaveLength(2);
    parallel = { callIds: two.body.choices[0].message.tool_calls.map((call: { id: string }) => call.id) };
  });
  afterAll(async () => server?.close());

  async function expectRefused(send: () => Promise<{ status: number; body: any }>, expected: Refusal): Promise<void> {
    const before = await appState(server);
    const response = await send();
    expect(response.status, JSON.stringify(response.body)).toBe(expected.status);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error).toMatchObject({
      code: expected.code,
      param: expected.param,
      type:
        expected.status === 401
          ? 'authentication_error'
          : expected.status === 404
            ? 'not_found_error'
            : 'invalid_request_error',
      message: expect.any(String),
    });
    for (const words of expected.says) expect(response.body.error.message).toContain(words);
    expect(await appState(server)).toBe(before);
  }

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    server.request('POST', '/v1/chat/completions', body, headers);

  const cases: [string, unknown, Refusal][] = [
    [
      'no model',
      { messages: [user('hi')] },
      { status: 400, code: 'invalid_request', param: 'model', says: ['model is required'] },
    ],
    [
      'no messages',
      { model: 'scripted:auto', messages: [] },
      { status: 400, code: 'invalid_request', param: 'messages', says: ['at least one message'] },
    ],
    [
      'a misspelt field',
      { model: 'scripted:auto', messages: [user('hi')], temprature: 0.2 },
      { status: 400, code: 'unknown_parameter', param: 'temprature', says: ["'temprature'"] },
    ],
    [
      'an unknown role',
      { model: 'scripted:auto', messages: [{ role: 'robot', content: 'beep' }] },
      {
        status: 400,
        code: 'invalid_request',
        param: 'messages[0].role',
        says: ['system, developer, user, assistant or tool'],
      },
    ],
    [
      'a misspelt field in a message',
      { model: 'scripted:auto', messages: [user('hi'), { role: 'tool', tool_call_id: 'x', contents: 'y' }] },
      { status: 400, code: 'unknown_parameter', param: 'messages[1].contents', says: ["'contents'"] },
    ],
    [
      'a tool message without tool_call_id',
      { model: 'scripted:auto', messages: [user('hi'), { role: 'tool', content: 'sunny' }] },
      { status: 400, code: 'invalid_request', param: 'messages[1].tool_call_id', says: ['is required'] },
    ],
    [
      'a tool message whose tool_call_id matches no earlier call',
      { model: 'scripted:auto', messages: [user('hi'), toolResult('call_nowhere')] },
      {
        status: 400,
        code: 'tool_output_without_call',
        param: 'messages[1].tool_call_id',
        says: ["'call_nowhere'", 'matches no tool_calls[].id', 'send that assistant message'],
      },
    ],
    [
      'a tool message after a user message, away from its call',
      {
        model: 'scripted:auto',
        messages: [user('hi'), assistantCalling('call_a'), user('wait'), toolResult('call_a')],
      },
      {
        status: 400,
        code: 'tool_call_without_output',
        param: 'messages[1].tool_calls[0]',
        says: ["'call_a'", 'before messages[2]', 'one tool message per call'],
      },
    ],
    [
      'a tool call left without its tool message',
      { model: 'scripted:auto', messages: [user('hi'), assistantCalling('call_a', 'call_b'), toolResult('call_a')] },
      {
        status: 400,
        code: 'tool_call_without_output',
        param: 'messages[1].tool_calls[1]',
        says: ["'call_b'", 'at the end of messages'],
      },
    ],
    [
      'two tool messages for one call',
      {
        model: 'scripted:auto',
        messages: [user('hi'), assistantCalling('call_a'), toolResult('call_a'), toolResult('call_a')],
      },
      {
        status: 400,
        code: 'duplicate_tool_output',
        param: 'messages[3].tool_call_id',
        says: ['exactly one tool message'],
      },
    ],
    [
      'two calls with one id',
      {
        model: 'scripted:auto',
        messages: [
          user('hi'),
          assistantCalling('call_a'),
          toolResult('call_a'),
          assistantCalling('call_a'),
          toolResult('call_a'),
        ],
      },
      {
        status: 400,
        code: 'duplicate_call_id',
        param: 'messages[3].tool_calls[0].id',
        says: ['messages[1].tool_calls[0]', 'its own id'],
      },
    ],
    [
      'n above 1',
      { model: 'scripted:auto', messages: [user('hi')], n: 2 },
      { status: 400, code: 'invalid_request', param: 'n', says: ['n must be 1'] },
    ],
    [
      'stop sequences',
      { model: 'scripted:auto', messages: [user('hi')], stop: ['END'] },
      { status: 400, code: 'unsupported_field', param: 'stop', says: ['leave stop out'] },
    ],
    [
      'a tool that is not a function',
      { model: 'scripted:auto', messages: [user('hi')], tools: [{ type: 'custom', custom: { name: 'x' } }] },
      { status: 400, code: 'unsupported_tool_type', param: 'tools[0].type', says: ['"custom"', 'function tools'] },
    ],
    [
      'a tool with a bad name',
      {
        model: 'scripted:auto',
        messages: [user('hi')],
        tools: [{ type: 'function', function: { name: 'get weather', parameters: { type: 'object' } } }],
      },
      { status: 400, code: 'invalid_tool_name', param: 'tools[0].function.name', says: ['get weather'] },
    ],
    [
      'tool parameters that are not an object schema',
      {
        model: 'scripted:auto',
        messages: [user('hi')],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'string' } } }],
      },
      {
        status: 400,
        code: 'invalid_tool_parameters',
        param: 'tools[0].function.parameters',
        says: ['"type": "object"'],
      },
    ],
    [
      'a tool_choice naming no tool',
      {
        model: 'scripted:auto',
        messages: [user('hi')],
        tools: [getWeatherTool],
        tool_choice: { type: 'function', function: { name: 'get_time' } },
      },
      {
        status: 400,
        code: 'unknown_tool_choice',
        param: 'tool_choice.function.name',
        says: ["'get_time'", 'get_weather'],
      },
    ],
    [
      'an unknown model',
      { model: 'gpt-nonexistent', messages: [user('hi')] },
      { status: 404, code: 'model_not_found', param: 'model', says: ["'gpt-nonexistent'", 'GET /v1/models'] },
    ],
    [
      'a provider model no provider serves',
      { model: 'nosuchprovider:model-x', messages: [user('hi')] },
      { status: 404, code: 'model_not_found', param: 'model', says: ['nosuchprovider:model-x'] },
    ],
    [
      'an image that is neither a data URL nor http(s)',
      {
        model: 'scripted:auto',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'ftp://x/y.png' } },
            ],
          },
        ],
      },
      { status: 400, code: 'invalid_value', param: 'messages[0].content[1].image_url.url', says: ['base64 data URL'] },
    ],
    [
      'audio input',
      {
        model: 'scripted:auto',
        messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
      },
      { status: 400, code: 'unsupported_input', param: 'messages[0].content[0]', says: ['audio'] },
    ],
  ];

  it.each(cases)('refuses %s', async (_name, body, expected) => {
    await expectRefused(() => post(body), expected);
  });

  it('refuses malformed JSON', async () => {
    await expectRefused(
      () => post('{"model": "scripted:auto", "messages": [', { 'content-type': 'application/json' }),
      {
        status: 400,
        code: 'invalid_json',
        param: null,
        says: ['JSON'],
      },
    );
  });

  it('refuses a body that is not JSON', async () => {
    const before = await appState(server);
    const response = await post('hello', { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect(response.body.error).toMatchObject({ code: 'unsupported_media_type', type: 'invalid_request_error' });
    expect(await appState(server)).toBe(before);
  });

  it('refuses an oversized body with 413', async () => {
    await expectRefused(() => post({ model: 'scripted:auto', messages: [user('x'.repeat(1_200_000))] }), {
      status: 413,
      code: 'body_too_large',
      param: null,
      says: ['larger than'],
    });
  });

  it('refuses an answer to a paused run under another model; the call stays pending', async () => {
    await expectRefused(
      () =>
        post({
          model: 'refund-desk',
          messages: [user(WEATHER_QUESTION), assistantCalling(paused.callId), toolResult(paused.callId)],
        }),
      {
        status: 400,
        code: 'model_mismatch',
        param: 'model',
        says: [paused.conversationId, 'same model'],
      },
    );
    expect((await ledgerRow(server, paused.callId)).state).toBe('pending');
  });

  it('refuses results for only some of the calls a run waits for; both stay pending', async () => {
    const [first, second] = parallel.callIds;
    await expectRefused(
      () =>
        post({
          model: 'scripted:auto',
          tools: [getWeatherTool],
          messages: [user('What is the weather in Paris and in Tokyo?'), assistantCalling(first!), toolResult(first!)],
        }),
      {
        status: 400,
        code: 'missing_tool_results',
        param: 'messages',
        says: [`missing: ${second}`],
      },
    );
    for (const id of parallel.callIds) expect((await ledgerRow(server, id)).state).toBe('pending');
  });

  it('refuses tool messages answering the runs of two conversations at once', async () => {
    const [tokyo] = parallel.callIds;
    await expectRefused(
      () =>
        post({
          model: 'scripted:auto',
          tools: [getWeatherTool],
          messages: [
            user(WEATHER_QUESTION),
            assistantCalling(paused.callId, tokyo!),
            toolResult(paused.callId),
            toolResult(tokyo!),
          ],
        }),
      {
        status: 400,
        code: 'invalid_tool_call_id',
        param: 'messages[3].tool_call_id',
        says: [`'${tokyo}'`, 'one reply'],
      },
    );
  });
});
