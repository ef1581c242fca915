import { describe, expect, it } from 'vitest';
import type { QueuedInputRecord } from '../../src/domain/records.ts';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore } from './store-backends.ts';
import { addConversation, at, seedTurn, uid } from './store-fixtures.ts';
import type { Seeded } from './store-fixtures.ts';

describe.each(backends)('idempotency keys ($name)', (backend) => {
  const store = useSharedStore(backend);
  /** A lease of process `owner` taken at `start` seconds, ending 30 s later. */
  const lease = (owner: string, start: number) => ({ owner, expiresAt: at(start + 30) });

  it('reserves a key once; a second reserve returns the existing row', async () => {
    const appId = uid('app');
    const key = uid('key');
    expect(await store().idempotency.reserve(appId, key, 'hash-1', at(1), lease('a', 1))).toEqual({
      reserved: true,
      takenOver: false,
    });
    const again = await store().idempotency.reserve(appId, key, 'hash-2', at(2), lease('b', 2));
    expect(again).toEqual({
      reserved: false,
      existing: {
        appId,
        key,
        requestHash: 'hash-1',
        state: 'in_progress',
        responseStatus: null,
        responseBody: null,
        createdAt: at(1),
        owner: 'a',
        leaseExpiresAt: at(31),
      },
    });
    // Keys are per app.
    expect(await store().idempotency.reserve(uid('app'), key, 'hash-1', at(1), lease('a', 1))).toEqual({
      reserved: true,
      takenOver: false,
    });
  });

  it('lets exactly one of several concurrent reservations win', async () => {
    const appId = uid('app');
    const key = uid('key');
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => store().idempotency.reserve(appId, key, `hash-${n}`, at(n), lease(`p${n}`, n))),
    );
    expect(results.filter((r) => r.reserved)).toHaveLength(1);
    for (const result of results) {
      if (!result.reserved) expect(result.existing.key).toBe(key);
    }
  });

  it('completes a reservation and returns the stored response afterwards', async () => {
    const appId = uid('app');
    const key = uid('key');
    await store().idempotency.reserve(appId, key, 'hash', at(1), lease('a', 1));
    expect(await store().idempotency.complete(appId, key, 'a', 201, '{"ok":true}')).toBe(true);
    const done = {
      appId,
      key,
      requestHash: 'hash',
      state: 'done',
      responseStatus: 201,
      responseBody: '{"ok":true}',
      createdAt: at(1),
      owner: 'a',
      leaseExpiresAt: null,
    };
    expect(await store().idempotency.get(appId, key)).toEqual(done);
    expect(await store().idempotency.reserve(appId, key, 'hash', at(5), lease('b', 5))).toEqual({
      reserved: false,
      existing: done,
    });
    // A finished response is kept: release only drops in-progress reservations, and it is never taken over.
    await store().idempotency.release(appId, key, 'a');
    expect(await store().idempotency.get(appId, key)).toEqual(done);
    expect(await store().idempotency.reserve(appId, key, 'hash', at(500), lease('b', 500))).toEqual({
      reserved: false,
      existing: done,
    });
  });

  it('releases an in-progress reservation so the key can be reserved again', async () => {
    const appId = uid('app');
    const key = uid('key');
    await store().idempotency.reserve(appId, key, 'hash', at(1), lease('a', 1));
    await store().idempotency.release(appId, key, 'a');
    expect(await store().idempotency.get(appId, key)).toBeUndefined();
    expect(await store().idempotency.reserve(appId, key, 'hash', at(2), lease('a', 2))).toEqual({
      reserved: true,
      takenOver: false,
    });
    expect(await store().idempotency.get(uid('app'), key)).toBeUndefined();
  });

  it('lets the same request take a key over once its owner’s lease ended, and only then', async () => {
    const appId = uid('app');
    const key = uid('key');
    await store().idempotency.reserve(appId, key, 'hash', at(1), lease('dead', 1)); // lease ends at 31 s
    // Within the lease: still the dead owner's.
    const early = await store().idempotency.reserve(appId, key, 'hash', at(30), lease('b', 30));
    expect(early.reserved).toBe(false);
    // Past it, another body is still refused (returned as is, for the caller to refuse)...
    const other = await store().idempotency.reserve(appId, key, 'other-hash', at(40), lease('b', 40));
    expect(other).toMatchObject({ reserved: false, existing: { owner: 'dead', requestHash: 'hash' } });
    // ...and the same request takes it over, under its own lease.
    expect(await store().idempotency.reserve(appId, key, 'hash', at(40), lease('b', 40))).toEqual({
      reserved: true,
      takenOver: true,
    });
    expect(await store().idempotency.get(appId, key)).toMatchObject({
      state: 'in_progress',
      owner: 'b',
      leaseExpiresAt: at(70),
      createdAt: at(1),
    });
    // The dead owner, were it only stalled, can no longer renew, settle or free the key.
    expect(await store().idempotency.renew(appId, key, lease('dead', 41))).toBe(false);
    expect(await store().idempotency.complete(appId, key, 'dead', 200, '{"late":true}')).toBe(false);
    await store().idempotency.release(appId, key, 'dead');
    expect(await store().idempotency.get(appId, key)).toMatchObject({ state: 'in_progress', owner: 'b' });
    expect(await store().idempotency.complete(appId, key, 'b', 200, '{"ok":true}')).toBe(true);
    expect(await store().idempotency.get(appId, key)).toMatchObject({ state: 'done', responseBody: '{"ok":true}' });
  });

  it('keeps a renewed lease: no take-over while its owner renews it', async () => {
    const appId = uid('app');
    const key = uid('key');
    await store().idempotency.reserve(appId, key, 'hash', at(1), lease('a', 1));
    expect(await store().idempotency.renew(appId, key, lease('a', 25))).toBe(true); // now ends at 55 s
    expect((await store().idempotency.reserve(appId, key, 'hash', at(40), lease('b', 40))).reserved).toBe(false);
    expect((await store().idempotency.reserve(appId, key, 'hash', at(56), lease('b', 56))).reserved).toBe(true);
  });

  it('lets one of several concurrent retries take an abandoned key over', async () => {
    const appId = uid('app');
    const key = uid('key');
    await store().idempotency.reserve(appId, key, 'hash', at(1), lease('dead', 1));
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => store().idempotency.reserve(appId, key, 'hash', at(100), lease(`p${n}`, 100))),
    );
    expect(results.filter((r) => r.reserved)).toHaveLength(1);
    const owner = (await store().idempotency.get(appId, key))?.owner;
    expect(['p1', 'p2', 'p3', 'p4']).toContain(owner);
  });
});

describe.each(backends)('queued inputs ($name)', (backend) => {
  const store = useSharedStore(backend);

  function queued(seeded: Seeded, text: string, overrides: Partial<QueuedInputRecord> = {}): QueuedInputRecord {
    return {
      id: uid('input'),
      appId: seeded.app.id,
      conversationId: seeded.conversation.id,
      content: [{ type: 'text', text }],
      options: { tools: [], toolChoice: 'none' },
      createdAt: at(1),
      ...overrides,
    };
  }

  it('lists a conversation’s inputs in the order they were queued, and deletes them', async () => {
    const seeded = await seedTurn(store());
    // Same createdAt on purpose: insertion order still decides.
    const inputs = ['first', 'second', 'third'].map((text) => queued(seeded, text));
    for (const input of inputs) await store().queuedInputs.insert(input);
    const other = await addConversation(store(), seeded.agent);
    await store().queuedInputs.insert(queued({ ...seeded, conversation: other.conversation }, 'elsewhere'));

    expect(await store().queuedInputs.listByConversation(seeded.conversation.id)).toEqual(inputs);

    expect(await store().queuedInputs.delete(inputs[1]?.id ?? '')).toBe(true);
    expect(await store().queuedInputs.delete(inputs[1]?.id ?? '')).toBe(false);
    expect((await store().queuedInputs.listByConversation(seeded.conversation.id)).map((i) => i.id)).toEqual([
      inputs[0]?.id,
      inputs[2]?.id,
    ]);
    expect(await store().queuedInputs.listByConversation(uid('conv'))).toEqual([]);
  });

  it('refuses a duplicate id', async () => {
    const seeded = await seedTurn(store());
    const input = queued(seeded, 'hi');
    await store().queuedInputs.insert(input);
    await expect(store().queuedInputs.insert(input)).rejects.toBeInstanceOf(DuplicateKeyError);
  });
});
