import { isAbortError, type RunEvent, type ThreadReply } from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultMessages, SEED, startClientHarness, type ClientHarness } from './client-fixtures.ts';

describe('aborting a run, and streaming one', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness();
  });
  afterAll(async () => h.close());

  /** Starts a run whose handler blocks until its signal aborts; resolves once the handler runs. */
  async function blockedRun(threadId: string, cancelOnAbort: boolean) {
    const controller = new AbortController();
    let handlerSignal: AbortSignal | undefined;
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const run = h.baton.threads.run(threadId, SEED, {
      signal: controller.signal,
      cancelOnAbort,
      tools: {
        request_approval: (_input, ctx) =>
          new Promise((_resolve, reject) => {
            handlerSignal = ctx.signal;
            ctx.signal.addEventListener('abort', () => reject(new Error('handler stopped')));
            entered();
          }),
      },
    });
    run.catch(() => {});
    await inHandler;
    return { controller, run, handlerSignal: () => handlerSignal };
  }

  it('abort rejects with an AbortError, aborts the handler, and leaves the thread pending for a resume', async () => {
    const threadId = await h.thread('refund-desk');
    const { controller, run, handlerSignal } = await blockedRun(threadId, false);
    controller.abort();
    const error = await run.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(isAbortError(error)).toBe(true);
    expect(handlerSignal()?.aborted).toBe(true);
    const thread = await h.baton.threads.get(threadId);
    expect(thread.status).toBe('pending');
    expect(await resultMessages(h.server, threadId)).toHaveLength(0);

    const resumed = await h.baton.threads.resume(threadId, {
      tools: { request_approval: () => ({ approved: true, approved_by: 'later@x.com' }) },
    });
    expect(resumed.text).toContain('later@x.com');
    expect((await h.baton.threads.get(threadId)).status).toBe('idle');
  });

  it('with cancelOnAbort the turn is cancelled too: the call gets a synthetic result', async () => {
    const threadId = await h.thread('refund-desk');
    const { controller, run } = await blockedRun(threadId, true);
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect((await h.baton.threads.get(threadId)).status).toBe('idle');
    const calls = await h.baton.toolCalls.list({ threadId });
    expect(calls.data.map((entry) => entry.state)).toEqual(['cancelled']);
  });

  it('an already aborted signal sends nothing', async () => {
    const threadId = await h.thread('refund-desk');
    await expect(h.baton.threads.run(threadId, SEED, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(await h.baton.threads.allMessages(threadId)).toHaveLength(0);
  });

  it('streams text deltas, calls, results, each reply and the final result', async () => {
    const threadId = await h.thread('weather');
    const events: RunEvent<ThreadReply>[] = [];
    for await (const event of h.baton.threads.stream(threadId, 'weather in SF and NYC', {
      tools: { get_weather: (input) => `${String(input.city)}: 20C` },
    })) {
      events.push(event);
    }
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type !== 'text.delta')).toEqual([
      'message',
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
      'message',
      'done',
    ]);
    const done = events[events.length - 1];
    if (done?.type !== 'done') throw new Error('no done event');
    const deltas = events.flatMap((event) => (event.type === 'text.delta' ? [event.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(done.result.text);
    expect(done.result.text).toContain('NYC: 20C');
    const calls = events.flatMap((event) => (event.type === 'tool_call' ? [event.call] : []));
    expect(calls.map((call) => call.input)).toEqual([{ city: 'SF' }, { city: 'NYC' }]);
    expect(await resultMessages(h.server, threadId)).toHaveLength(1);
  });

  it('a stream the reader leaves early aborts the run', async () => {
    const threadId = await h.thread('refund-desk');
    let handlerSignal: AbortSignal | undefined;
    for await (const event of h.baton.threads.stream(threadId, SEED, {
      tools: {
        request_approval: (_input, ctx) =>
          new Promise(
            (resolve) => ((handlerSignal = ctx.signal), ctx.signal.addEventListener('abort', () => resolve('late'))),
          ),
      },
    })) {
      if (event.type === 'tool_call') break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handlerSignal?.aborted).toBe(true);
    expect((await h.baton.threads.get(threadId)).status).toBe('pending');
  });

  it('stream errors surface as BatonErrors from the loop', async () => {
    const iterate = async () => {
      for await (const _event of h.baton.threads.stream('thread_missing', 'hi')) void _event;
    };
    await expect(iterate()).rejects.toMatchObject({ name: 'BatonError', status: 404, code: 'thread_not_found' });
  });
});
