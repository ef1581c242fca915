import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { IdempotencyExpiry } from '../../src/server/idempotency-expiry.ts';
import type { Store } from '../../src/store/store.ts';
import { backends, useSharedStore, withFreshStore } from './store-backends.ts';
import { agentRecord, appRecord, at, conversationRecord, uid } from './store-fixtures.ts';

/**
 * Idempotency keys linked to the conversations their responses name, and their expiry, on every
 * backend: a conversation's deletion takes the keys linked to it (and all their links); expiry
 * deletes keys older than the TTL that are done or abandoned, with their links, and keeps a key
 * whose request still runs, however old.
 */

/** A lease of process `owner` taken at `start` seconds, ending `seconds` later. */
const lease = (owner: string, start: number, seconds = 30) => ({ owner, expiresAt: at(start + seconds) });

/** A key reserved at `created` seconds and completed with a response naming `conversationIds`. */
async function doneKey(store: Store, appId: string, key: string, created: number, conversationIds: string[] = []) {
  await store.idempotency.reserve(appId, key, 'hash', at(created), lease('p', created));
  const body = JSON.stringify({ names: conversationIds });
  expect(await store.idempotency.complete(appId, key, 'p', 200, body, conversationIds)).toBe(true);
}

/** An app with an agent and conversations whose ids have the shape Baton's have (`thread_` + 24). */
async function appWithThreads(store: Store, count: number): Promise<{ appId: string; threads: string[] }> {
  const app = appRecord();
  await store.apps.insert(app);
  const agent = agentRecord(app.id, 'support');
  await store.agents.insert(agent);
  const threads: string[] = [];
  for (let index = 0; index < count; index++) {
    const conversation = conversationRecord(agent, { id: newId('thread') });
    await store.conversations.insert(conversation);
    threads.push(conversation.id);
  }
  return { appId: app.id, threads };
}

describe.each(backends)('idempotency key links ($name)', (backend) => {
  const store = useSharedStore(backend);

  it("a conversation's deletion takes the keys linked to it with all their links; other keys stay", async () => {
    const { appId, threads } = await appWithThreads(store(), 2);
    const [a, b] = threads as [string, string];
    await doneKey(store(), appId, 'names-both', 1, [a, b]);
    await doneKey(store(), appId, 'names-b', 2, [b]);
    await doneKey(store(), appId, 'names-none', 3);
    // Another app's key naming the same id (it cannot be that app's conversation) is not touched.
    const otherApp = uid('app');
    await doneKey(store(), otherApp, 'names-both', 4, [a]);

    expect(await store().lifecycle.purgeConversation(appId, a)).toMatchObject({
      conversations: 1,
      idempotency_keys: 1,
      idempotency_key_conversations: 2,
    });
    expect(await store().idempotency.get(appId, 'names-both')).toBeUndefined();
    expect(await store().idempotency.get(appId, 'names-b')).toBeDefined();
    expect(await store().idempotency.get(appId, 'names-none')).toBeDefined();
    expect(await store().idempotency.get(otherApp, 'names-both')).toBeDefined();
    // The link of the deleted key to b went with it: b's deletion finds only its own key.
    expect(await store().lifecycle.purgeConversation(appId, b)).toMatchObject({
      idempotency_keys: 1,
      idempotency_key_conversations: 1,
    });
    expect(await store().idempotency.get(appId, 'names-b')).toBeUndefined();
  });

  it('a completion that lost its key to a takeover stores no response and no link', async () => {
    const { appId, threads } = await appWithThreads(store(), 1);
    const [thread] = threads as [string];
    await store().idempotency.reserve(appId, 'taken', 'hash', at(1), lease('dead', 1)); // lease ends at 31 s
    expect((await store().idempotency.reserve(appId, 'taken', 'hash', at(40), lease('b', 40))).reserved).toBe(true);
    expect(await store().idempotency.complete(appId, 'taken', 'dead', 200, `{"id":"${thread}"}`, [thread])).toBe(false);
    const counts = await store().lifecycle.purgeConversation(appId, thread);
    expect(counts).not.toHaveProperty('idempotency_key_conversations');
    expect(await store().idempotency.get(appId, 'taken')).toMatchObject({ state: 'in_progress', owner: 'b' });
  });
});

describe.each(backends)('idempotency key expiry ($name)', (backend) => {
  it('deletes done and abandoned keys created before the cutoff, with their links; keeps young and running ones', async () => {
    // A store of its own: expiry reads every app's keys.
    await withFreshStore(backend, async (store) => {
      const { appId, threads } = await appWithThreads(store, 2);
      const [a, b] = threads as [string, string];
      await doneKey(store, appId, 'old-done', 1, [a]);
      await doneKey(store, appId, 'young-done', 1500, [b]);
      // Still running: its lease renewed until past now (2000 s).
      await store.idempotency.reserve(appId, 'old-running', 'hash', at(2), lease('live', 2, 30));
      expect(await store.idempotency.renew(appId, 'old-running', lease('live', 1990, 30))).toBe(true);
      // Its process died long ago: the lease ended at 33 s.
      await store.idempotency.reserve(appId, 'old-abandoned', 'hash', at(3), lease('dead', 3));

      // At most `limit`, oldest first.
      expect(await store.idempotency.deleteExpired(at(1000), 1, at(2000))).toBe(1);
      expect(await store.idempotency.get(appId, 'old-done')).toBeUndefined();
      expect(await store.idempotency.get(appId, 'old-abandoned')).toBeDefined();
      expect(await store.idempotency.deleteExpired(at(1000), 100, at(2000))).toBe(1);
      expect(await store.idempotency.get(appId, 'old-abandoned')).toBeUndefined();
      expect(await store.idempotency.deleteExpired(at(1000), 100, at(2000))).toBe(0);
      expect(await store.idempotency.get(appId, 'young-done')).toBeDefined();
      expect(await store.idempotency.get(appId, 'old-running')).toMatchObject({ state: 'in_progress', owner: 'live' });

      // old-done's link went with it: a's deletion finds no key; b's finds young-done.
      expect(await store.lifecycle.purgeConversation(appId, a)).toEqual({ conversations: 1 });
      expect(await store.lifecycle.purgeConversation(appId, b)).toMatchObject({
        idempotency_keys: 1,
        idempotency_key_conversations: 1,
      });
    });
  });

  it('IdempotencyExpiry deletes every expired key in batches, at most once per interval in the background', async () => {
    await withFreshStore(backend, async (store) => {
      const appId = uid('app');
      for (let index = 0; index < 5; index++) await doneKey(store, appId, `k${index}`, index);
      await doneKey(store, appId, 'young', 90_000);
      let now = new Date(at(24 * 3600 + 100));
      const clock = { now: () => now };
      const errors: unknown[] = [];
      const expiry = new IdempotencyExpiry(store, clock, { ttlHours: 24, batch: 2, intervalMs: 60_000 }, (error) =>
        errors.push(error),
      );
      // 2 + 2 + 1: the short batch ends the run.
      expect(await expiry.run()).toBe(5);
      expect(await store.idempotency.get(appId, 'young')).toBeDefined();

      // In the background: started at once, not again within the interval, again after it.
      now = new Date(at(90_000 + 24 * 3600 + 1));
      await doneKey(store, appId, 'later', 100_000);
      const deleteExpired = store.idempotency.deleteExpired.bind(store.idempotency);
      let runs = 0;
      store.idempotency.deleteExpired = async (...args) => {
        runs += 1;
        return deleteExpired(...args);
      };
      expiry.startWhenDue();
      expiry.startWhenDue(); // running: not stacked
      await expiry.idle();
      expect(runs).toBe(1);
      expect(await store.idempotency.get(appId, 'young')).toBeUndefined();
      expect(await store.idempotency.get(appId, 'later')).toBeDefined();
      now = new Date(now.getTime() + 59_000);
      expiry.startWhenDue(); // within the interval: not yet
      await expiry.idle();
      expect(runs).toBe(1);
      now = new Date(now.getTime() + 1_000);
      expiry.startWhenDue();
      await expiry.idle();
      expect(runs).toBe(2);

      // A failed run is reported, and the next interval tries again.
      store.idempotency.deleteExpired = async () => {
        throw new Error('database gone');
      };
      now = new Date(now.getTime() + 60_000);
      expiry.startWhenDue();
      await expiry.idle();
      expect(errors).toEqual([new Error('database gone')]);
      await expiry.stop();
      now = new Date(now.getTime() + 60_000);
      expiry.startWhenDue(); // stopped: nothing starts
      await expiry.idle();
      expect(errors).toHaveLength(1);
    });
  });
});
