import type { ToolCallEvent } from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED, startClientHarness, type ClientHarness } from './client-fixtures.ts';

/** The ledger through the SDK: listing, one call's tool, per-call results, and the live event stream. */
describe('toolCalls and friends', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness();
  });
  afterAll(async () => h.close());

  it('lists threads and calls, shows the tool of a call, answers one call, and says who the key is', async () => {
    const threadId = await h.thread('refund-desk');
    await h.baton.threads.send(threadId, { content: SEED });
    const threads = await h.baton.threads.list({ agent: 'refund-desk', limit: 100 });
    expect(threads.data.map((thread) => thread.id)).toContain(threadId);
    const pending = await h.baton.toolCalls.list({
      state: 'pending',
      threadId,
      createdBefore: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(pending.data).toHaveLength(1);
    const call = pending.data[0]!;
    expect(await h.baton.toolCalls.list({ threadId, createdBefore: '2000-01-01T00:00:00Z' })).toMatchObject({
      data: [],
    });
    const tool = await h.baton.toolCalls.tool(call.id);
    expect(tool).toMatchObject({
      call_id: call.id,
      name: 'request_approval',
      executor: 'client',
      parameters: expect.objectContaining({ type: 'object' }),
    });
    const answered = await h.baton.toolCalls.submitResult(call.id, {
      content: '{"approved": true, "approved_by": "one@x.com"}',
    });
    expect(answered.resumed).toBe(true);
    expect(answered.response?.choices[0]?.message.content).toContain('one@x.com');
    const me = await h.baton.me();
    expect(me.app.resource_name).toBe('projects/default/locations/global/apps/default');
    expect(me.key.role).toBe('operator');
  });

  it('streams ledger events: created, then resolved; resumes after the last event id; stops on abort', async () => {
    const controller = new AbortController();
    const events: ToolCallEvent[] = [];
    let onEvent = (): void => {};
    const reading = (async () => {
      for await (const event of h.baton.toolCalls.events({ agent: 'refund-desk', signal: controller.signal })) {
        events.push(event);
        onEvent();
      }
    })();
    const until = (test: () => boolean): Promise<void> =>
      new Promise((resolve) => {
        onEvent = () => test() && resolve();
        onEvent();
      });
    await until(() => events.some((event) => event.type === 'ready'));

    const threadId = await h.thread('refund-desk');
    // The handler answers only once the stream has shown its call as pending (the feed polls the store).
    const result = await h.baton.threads.run(threadId, SEED, {
      tools: {
        request_approval: async (_input, ctx) => {
          await until(() =>
            events.some((event) => event.type === 'tool_call.created' && event.toolCall?.id === ctx.callId),
          );
          return { approved: true };
        },
      },
    });
    const callId = result.toolCalls[0]!.id;
    await until(() => events.some((event) => event.type === 'tool_call.resolved' && event.toolCall?.id === callId));
    const mine = events.filter((event) => event.toolCall?.id === callId);
    expect(mine.map((event) => [event.type, event.toolCall?.state])).toEqual([
      ['tool_call.created', 'pending'],
      ['tool_call.resolved', 'completed'],
    ]);
    expect(mine[0]?.id).toEqual(expect.stringContaining(callId));
    controller.abort();
    await reading; // ends quietly

    // From the created event's id, the stream replays what came after it.
    const replay = new AbortController();
    const replayed: ToolCallEvent[] = [];
    for await (const event of h.baton.toolCalls.events({ lastEventId: mine[0]!.id!, signal: replay.signal })) {
      replayed.push(event);
      if (event.toolCall?.id === callId) replay.abort();
    }
    expect(replayed.map((event) => event.type)).toEqual(['ready', 'tool_call.resolved']);
  });
});
