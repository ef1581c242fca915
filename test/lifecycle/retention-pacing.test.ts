import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * A retention run shares the event loop with requests (src/engine/lifecycle/retention-pacer.ts).
 * On SQLite every statement is synchronous and the deletions chain on promises alone: before the
 * pacer, a batch held the loop until it was done (100 conversations: 100–300 ms in the bench, with
 * round trips at 10 clients down to a quarter). SQLite only: PostgreSQL's queries are I/O, which
 * yields anyway.
 */

const APP = 'projects/default/locations/global/apps/default';
const DAY = 86_400;
const CONVERSATIONS = 300;

describe('retention pacing on sqlite', () => {
  const clock = new ManualClock(new Date('2026-03-01T09:00:00.000Z'));
  let server: TestBaton;

  beforeAll(async () => {
    server = await startTestBaton({}, { clock });
  });
  afterAll(async () => server?.close());

  it('lets a timer run while it deletes a batch, long before the batch is done', async () => {
    const patched = await server.request('PATCH', `/v1/${APP}?update_mask=retention`, {
      retention: { conversations_after_days: 30 },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    for (let i = 0; i < CONVERSATIONS; i++)
      await server.baton.engine.createConversation(server.baton.defaultAppId, 'refund-desk', {});
    clock.advance(31 * DAY);

    // One batch of all of them: unpaced, the whole run would end before the timer's callback.
    let ended = false;
    const run = server.baton.engine.applyRetention({ conversationBatch: CONVERSATIONS });
    void run.then(() => (ended = true));
    const endedWhenTimerRan = await new Promise<boolean>((resolve) => setTimeout(() => resolve(ended), 0));
    const result = await run;

    expect(result.apps).toEqual([expect.objectContaining({ conversations: CONVERSATIONS, skipped: 0 })]);
    expect(endedWhenTimerRan).toBe(false);
  });
});
