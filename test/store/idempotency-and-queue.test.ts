import { describe, expect, it } from 'vitest';
import type { QueuedInputRecord } from '../../src/domain/records.ts';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore } from './store-backends.ts';
import { addConversation, at, seedTurn, uid } from './store-fixtures.ts';
import type { Seeded } from './store-fixtures.ts';

describe.each(backends)('idempotency keys ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('reserves a key once; a second reserve returns the existing row', async () => {
    const appId = uid('app');
    const key = uid('key');
    expect(await store().idempotency.reserve(appId, key, 'hash-1', at(1))).toEqual({ reserved: true });
    const again = await store().idempotency.reserve(appId, key, 'hash-2', at(2));
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
      },
    });
    // Keys are per app.
    expect(await store().idempotency.reserve(uid('app'), key, 'hash-1', at(1))).toEqual({ reserved: true });
  });

  it('lets exactly one of several concurrent reservations win', async () => {
    const appId = uid('app');
    const key = uid('key');
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => store().idempotency.reserve(appId, key, `hash-${n}`, at(n))),
    );
    expect(results.filter((r) => r.reserved)).toHaveLength(1);
    for (const result of results) {
      if (!result.reserved) expect(result.existing.key).toBe(key);
    }
  });

  it('completes a reservation and returns the stored response afterwards', async () => {
    const appId = uid('app');
    const key = uid('key');
    await store().idempotency.reserve(appId, key, 'hash', at(1));
    await store().idempotency.complete(appId, key, 201, '{"ok":true}');
    const done = {
      appId,
      key,
      requestHash: 'hash',
      state: 'done',
      responseStatus: 201,
      responseBody: '{"ok":true}',
      createdAt: at(1),
    };
    expect(await store().idempotency.get(appId, key)).toEqual(done);
    expect(await store().idempotency.reserve(appId, key, 'hash', at(5))).toEqual({ reserved: false, existing: done });
    // A finished response is kept: release only drops in-progress reservations.
    await store().idempotency.release(appId, key);
    expect(await store().idempotency.get(appId, key)).toEqual(done);
  });

  it('releases an in-progress reservation so the key can be reserved again', async () => {
    const appId = uid('app');
    const key = uid('key');
    await store().idempotency.reserve(appId, key, 'hash', at(1));
    await store().idempotency.release(appId, key);
    expect(await store().idempotency.get(appId, key)).toBeUndefined();
    expect(await store().idempotency.reserve(appId, key, 'hash', at(2))).toEqual({ reserved: true });
    expect(await store().idempotency.get(uid('app'), key)).toBeUndefined();
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
