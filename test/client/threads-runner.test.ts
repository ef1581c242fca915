import { Baton, BatonRunError, defineTool, type ToolContext } from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultMessages, SEED, startClientHarness, type ClientHarness } from './client-fixtures.ts';

/** `threads.run`: the tool loop over the Threads face, against a real Baton. */
describe('threads.run', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness();
  });
  afterAll(async () => h.close());

  it('runs the issue example: the paused turn resumes with the handler result and the text comes back', async () => {
    const threadId = await h.thread('refund-desk');
    const seen: { input: unknown; ctx: ToolContext }[] = [];
    const baton = new Baton({ baseURL: h.server.url, apiKey: h.server.key });
    const answer = await baton.threads.run(threadId, 'I need approval to process a $500 refund', {
      tools: {
        request_approval: async (input, ctx) => {
          seen.push({ input, ctx });
          return { approved: true, approved_by: 'm@x.com' };
        },
      },
    });
    expect(answer.text).toContain('approved_by: m@x.com');
    expect(answer.threadId).toBe(threadId);
    expect(answer.rounds).toBe(1);
    expect(answer.message.text).toBe(answer.text);
    expect(answer.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        name: 'request_approval',
        input: expect.objectContaining({ amount: 500 }),
        result: '{"approved":true,"approved_by":"m@x.com"}',
        isError: false,
        durationMs: expect.any(Number),
      },
    ]);
    expect(seen[0]?.input).toMatchObject({ action: 'refund', amount: 500 });
    expect(seen[0]?.ctx).toMatchObject({
      callId: answer.toolCalls[0]?.id,
      toolName: 'request_approval',
      threadId,
      face: 'threads',
    });
    expect(seen[0]?.ctx.signal.aborted).toBe(false);
    const thread = await baton.threads.get(threadId);
    expect(thread.status).toBe('idle');
  });

  it('runs parallel calls concurrently and sends all results in ONE message', async () => {
    const threadId = await h.thread('weather');
    const log: string[] = [];
    let started = 0;
    let bothStarted!: () => void;
    const barrier = new Promise<void>((resolve) => (bothStarted = resolve));
    const result = await h.baton.threads.run(threadId, 'weather in SF and NYC', {
      tools: {
        get_weather: async (input) => {
          const city = String(input.city);
          log.push(`start ${city}`);
          if (++started === 2) bothStarted();
          // Run one after the other, the first handler would wait here for a start that never comes.
          await Promise.race([
            barrier,
            new Promise((_, reject) => setTimeout(() => reject(new Error('the other handler never started')), 2_000)),
          ]);
          log.push(`end ${city}`);
          return `${city}: sunny`;
        },
      },
    });
    expect(log.slice(0, 2).sort()).toEqual(['start NYC', 'start SF']);
    expect(result.toolCalls.map((call) => [call.result, call.isError])).toEqual([
      ['SF: sunny', false],
      ['NYC: sunny', false],
    ]);
    expect(result.rounds).toBe(1);
    const messages = await resultMessages(h.server, threadId);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.content.map((block) => block.tool_call_id)).toEqual(result.toolCalls.map((call) => call.id));
    expect(result.text).toContain('Weather report');
  });

  it('sends strings as is and other values as JSON', async () => {
    const threadId = await h.thread('weather');
    const result = await h.baton.threads.run(threadId, 'weather in SF and NYC', {
      tools: { get_weather: (input) => (input.city === 'SF' ? 'plain text' : { city: input.city, fahrenheit: 45 }) },
    });
    const entries = await Promise.all(result.toolCalls.map((call) => h.baton.toolCalls.get(call.id)));
    expect(entries.map((entry) => entry.result?.content)).toEqual(['plain text', '{"city":"NYC","fahrenheit":45}']);
  });

  it('turns a throwing handler into an is_error result and the run completes', async () => {
    const threadId = await h.thread('weather');
    const result = await h.baton.threads.run(threadId, 'weather in SF and NYC', {
      tools: {
        get_weather: (input) => {
          if (input.city === 'NYC') throw new Error('weather service down');
          return 'SF: 68F';
        },
      },
    });
    expect(result.toolCalls.map((call) => call.isError)).toEqual([false, true]);
    const [message] = await resultMessages(h.server, threadId);
    expect(message?.content[1]).toMatchObject({ content: 'weather service down', is_error: true });
    expect(message?.content[0]).not.toHaveProperty('is_error');
    expect(result.text).toContain('A tool failed: weather service down');
  });

  it('answers a call of a tool with no handler with an error naming it, and the run completes', async () => {
    const threadId = await h.thread('weather');
    const result = await h.baton.threads.run(threadId, 'weather in SF and NYC', { tools: { get_time: () => 'noon' } });
    expect(result.toolCalls.every((call) => call.isError)).toBe(true);
    expect(result.toolCalls[0]?.result).toMatch(/no handler for tool 'get_weather' \(handlers: get_time\)/);
    const [message] = await resultMessages(h.server, threadId);
    expect(message?.content.map((block) => block.is_error)).toEqual([true, true]);
    expect(result.text).toContain('A tool failed');
  });

  it('a fallback handler answers tools without their own handler', async () => {
    const threadId = await h.thread('weather');
    const result = await h.baton.threads.run(threadId, 'weather in SF and NYC', {
      fallback: (_input, ctx) => `fallback for ${ctx.toolName}`,
    });
    expect(result.toolCalls.map((call) => call.result)).toEqual([
      'fallback for get_weather',
      'fallback for get_weather',
    ]);
  });

  it('gives up on a handler after its timeout: an error result, and its signal aborts', async () => {
    const threadId = await h.thread('weather');
    const aborted: string[] = [];
    const hang = (_input: unknown, ctx: ToolContext): Promise<never> =>
      new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => (aborted.push(ctx.callId), reject(new Error('stopped')))),
      );
    const result = await h.baton.threads.run(threadId, 'weather in SF and NYC', {
      handlerTimeoutMs: 60_000,
      tools: [
        defineTool({
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          timeoutMs: 100,
          handler: hang,
        }),
      ],
    });
    expect(result.toolCalls.map((call) => call.isError)).toEqual([true, true]);
    expect(result.toolCalls[0]?.result).toMatch(/did not answer within 100 ms/);
    expect(aborted.sort()).toEqual(result.toolCalls.map((call) => call.id).sort());
    const [message] = await resultMessages(h.server, threadId);
    expect(
      message?.content.every((block) => block.is_error === true && /within 100 ms/.test(block.content ?? '')),
    ).toBe(true);
  });

  it('stops a model that never stops calling tools at maxRounds, leaving the thread resumable', async () => {
    const threadId = await h.thread('looper');
    let pings = 0;
    const run = h.baton.threads.run(threadId, 'loop', { maxRounds: 3, tools: { ping: () => `pong ${++pings}` } });
    await expect(run).rejects.toBeInstanceOf(BatonRunError);
    await expect(run).rejects.toMatchObject({
      code: 'max_rounds',
      threadId,
      message: expect.stringContaining('maxRounds = 3'),
    });
    expect(pings).toBe(3);
    expect((await h.baton.threads.get(threadId)).status).toBe('pending');
  });

  it('on a thread that waits on calls, answers them first, then sends the new input', async () => {
    const threadId = await h.thread('refund-desk');
    const paused = await h.baton.threads.send(threadId, { role: 'user', content: SEED });
    expect('choices' in paused && paused.choices[0]?.finish_reason).toBe('tool_use');
    const amounts: unknown[] = [];
    const result = await h.baton.threads.run(threadId, 'And a refund of $20 too', {
      tools: {
        request_approval: (input) => (amounts.push(input.amount), { approved: true, approved_by: 'boss@x.com' }),
      },
    });
    expect(amounts).toEqual([500, 20]);
    expect(result.toolCalls).toHaveLength(2);
    const transcript = await h.baton.threads.allMessages(threadId);
    expect(transcript.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(transcript[4]?.content).toBe('And a refund of $20 too');
    expect(result.text).toBe(transcript[7]?.content);
  });

  it('resume on an idle thread returns its last answer without sending anything', async () => {
    const threadId = await h.thread('refund-desk');
    const first = await h.baton.threads.run(threadId, SEED, {
      tools: { request_approval: () => ({ approved: false }) },
    });
    const resumed = await h.baton.threads.resume(threadId, { tools: {} });
    expect(resumed.text).toBe(first.text);
    expect(resumed.rounds).toBe(0);
    expect(await h.baton.threads.allMessages(threadId)).toHaveLength(4);
  });
});
