import type { RunCall, RunEvent } from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShipper, resultMessages, startClientHarness, type ClientHarness } from './client-fixtures.ts';

/**
 * Approvals: a server tool with `requireApproval` pauses the turn until a person decides through
 * the ledger. The runner decides with `onApproval`, or waits for a decision made elsewhere.
 */
describe('approvals in threads.run', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness();
    await createShipper(h.server);
  });
  afterAll(async () => h.close());

  it('onApproval approves: the tool runs on Baton and the run answers', async () => {
    const threadId = await h.thread('shipper');
    const asked: RunCall[] = [];
    const result = await h.baton.threads.run(threadId, 'ship to 92031', {
      onApproval: (call, ctx) => {
        asked.push(call);
        expect(ctx.threadId).toBe(threadId);
        return { approve: true };
      },
    });
    expect(asked).toEqual([
      expect.objectContaining({ name: 'shipping_cost', kind: 'approval', input: { zip_code: '92031' } }),
    ]);
    expect(result.text).toContain('"cost_usd":4.5');
    expect(result.toolCalls).toEqual([]);
    const entry = await h.baton.toolCalls.get(asked[0]!.id);
    expect(entry).toMatchObject({ kind: 'approval', state: 'completed', submitted_by: expect.any(String) });
  });

  it('onApproval denies with a reason: the model gets it as an error result', async () => {
    const threadId = await h.thread('shipper');
    const result = await h.baton.threads.run(threadId, 'ship to 92031', {
      onApproval: () => ({ approve: false, reason: 'shipping is paused' }),
    });
    expect(result.text).toMatch(/^Failed: .*shipping is paused/);
  });

  it('a client call and an approval in one step: the result is sent, the approval decided, one results message', async () => {
    const threadId = await h.thread('shipper');
    const events: RunEvent[] = [];
    const result = await h.baton.threads.run(threadId, 'ship and weather', {
      tools: { get_weather: (input) => `${String(input.city)}: 3C` },
      onApproval: () => ({ approve: true }),
      onEvent: (event) => events.push(event),
    });
    expect(result.toolCalls.map((call) => [call.name, call.result])).toEqual([['get_weather', 'Oslo: 3C']]);
    expect(events.filter((event) => event.type === 'approval')).toHaveLength(1);
    const messages = await resultMessages(h.server, threadId);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.content.map((block) => block.content)).toEqual(['Oslo: 3C', expect.stringContaining('4.5')]);
    expect(result.text).toContain('Done');
  });

  it('without onApproval, waits until someone else decides, then goes on', async () => {
    const threadId = await h.thread('shipper');
    const events: RunEvent[] = [];
    const run = h.baton.threads.run(threadId, 'ship to 92031', {
      pollIntervalMs: 20,
      onEvent: (event) => events.push(event),
    });
    // A person, elsewhere: finds the pending approval in the ledger and approves it.
    let pending: { id: string }[] = [];
    while (pending.length === 0) {
      pending = (await h.server.request('GET', `/v1/tool-calls?state=pending&thread_id=${threadId}`)).body.data;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await h.baton.threads.get(threadId)).status).toBe('pending');
    const decided = await h.server.request('POST', `/v1/tool-calls/${pending[0]!.id}/decision`, { approve: true });
    expect(decided.status).toBe(200);
    const result = await run;
    expect(result.text).toContain('"cost_usd":4.5');
    expect(events.map((event) => event.type)).toContain('approval');
    expect(events[events.length - 1]?.type).toBe('done');
  });
});
