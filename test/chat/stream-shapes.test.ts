import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flakyAgent, testPrograms } from '../helpers/test-agents.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { getWeatherTool, WEATHER_QUESTION } from './chat-fixtures.ts';

interface RawStream {
  status: number;
  contentType: string | null;
  /** Each frame's lines, as sent. */
  frames: string[][];
  /** The parsed `data:` of every frame but `[DONE]`. */
  chunks: any[];
}

/** The SSE wire itself, frame by frame, as a client without an SDK reads it. */
describe('Chat Completions: streamed chunk shapes on the wire', () => {
  let server: TestBaton;

  beforeAll(async () => {
    server = await startTestBaton({ scripted: { flaky: testPrograms.flaky }, agents: [flakyAgent] });
  });
  afterAll(async () => server?.close());

  async function stream(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RawStream> {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ ...body, stream: true }),
    });
    const text = await response.text();
    expect(text.endsWith('\n\n')).toBe(true);
    const frames = text
      .slice(0, -2)
      .split('\n\n')
      .map((frame) => frame.split('\n'));
    const chunks = frames
      .map((lines) => lines[0]?.slice('data: '.length) ?? '')
      .filter((data) => data !== '[DONE]')
      .map((data) => JSON.parse(data));
    return { status: response.status, contentType: response.headers.get('content-type'), frames, chunks };
  }

  it('frames are single data: lines, chunks share one id, the stream ends with data: [DONE]', async () => {
    const { status, contentType, frames, chunks } = await stream({
      model: 'scripted:auto',
      messages: [{ role: 'user', content: 'Say something kind.' }],
      stream_options: { include_usage: true },
    });
    expect(status).toBe(200);
    expect(contentType).toContain('text/event-stream');
    expect(frames.every((lines) => lines.length === 1 && lines[0]!.startsWith('data: '))).toBe(true);
    expect(frames[frames.length - 1]).toEqual(['data: [DONE]']);

    const [first, ...rest] = chunks;
    expect(first).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion.chunk',
      created: expect.any(Number),
      model: 'scripted:auto',
      system_fingerprint: null,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      usage: null,
    });
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set([first.id]));
    const contentChunks = rest.filter((chunk) => chunk.choices[0]?.delta.content);
    expect(contentChunks.length).toBeGreaterThan(1);
    for (const chunk of contentChunks) expect(Object.keys(chunk.choices[0].delta)).toEqual(['content']);
    const final = chunks[chunks.length - 2];
    expect(final.choices).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
    const usage = chunks[chunks.length - 1];
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: usage.usage.prompt_tokens + usage.usage.completion_tokens,
    });
  });

  it('without include_usage there is no usage field and no usage chunk', async () => {
    const { chunks } = await stream({ model: 'scripted:auto', messages: [{ role: 'user', content: 'hi' }] });
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
  });

  it('tool calls: one chunk with index, id, type and name, then one with the arguments; finish_reason tool_calls', async () => {
    const { chunks } = await stream({
      model: 'scripted:auto',
      messages: [{ role: 'user', content: 'What is the weather in Paris and in Tokyo?' }],
      tools: [getWeatherTool],
    });
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
      { index: 0, function: { arguments: '{"city":"Paris"}' } },
      {
        index: 1,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
      { index: 1, function: { arguments: '{"city":"Tokyo"}' } },
    ]);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('tool_calls');
  });

  it('a run that fails after the stream opened ends with an OpenAI error frame, then [DONE]', async () => {
    const { status, frames, chunks } = await stream({ model: 'flaky', messages: [{ role: 'user', content: 'flaky' }] });
    expect(status).toBe(200);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks[chunks.length - 1]).toEqual({
      error: {
        message: expect.stringContaining('upstream overloaded'),
        type: 'server_error',
        param: null,
        code: 'model_error',
        conversation_id: expect.stringMatching(/^thread_/),
        turn_id: expect.stringMatching(/^turn_/),
      },
    });
    expect(frames[frames.length - 1]).toEqual(['data: [DONE]']);
  });

  it('the same failure without streaming is a 502 in OpenAI format', async () => {
    const response = await server.request('POST', '/v1/chat/completions', {
      model: 'flaky',
      messages: [{ role: 'user', content: 'flaky' }],
    });
    expect(response.status).toBe(502);
    expect(response.body.error).toMatchObject({ code: 'model_error', type: 'server_error' });
  });

  it('a refusal found before the run starts is a plain JSON error, not a stream', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
  });

  it('a streamed request retried under its Idempotency-Key gets the completion again, as JSON', async () => {
    const body = {
      model: 'scripted:auto',
      messages: [{ role: 'user', content: WEATHER_QUESTION }],
      tools: [getWeatherTool],
    };
    const key = { 'idempotency-key': 'chat-stream-retry-1' };
    const first = await stream(body, key);
    const callId = first.chunks.flatMap((chunk) => chunk.choices?.[0]?.delta.tool_calls ?? [])[0]?.id;
    const retried = await server.request('POST', '/v1/chat/completions', { ...body, stream: true }, key);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toMatchObject({
      object: 'chat.completion',
      id: first.chunks[0].id,
      choices: [{ finish_reason: 'tool_calls', message: { tool_calls: [{ id: callId }] } }],
    });
  });
});
