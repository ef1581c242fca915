import { describe, expect, it } from 'vitest';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore, withFreshStore } from './store-backends.ts';
import { addTurn, at, seedTurn, uid } from './store-fixtures.ts';

describe.each(backends)('conversations ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('inserts and reads a conversation, scoped by app', async () => {
    const { app, conversation } = await seedTurn(store());
    expect(await store().conversations.get(app.id, conversation.id)).toEqual(conversation);
    expect(await store().conversations.get(uid('other-app'), conversation.id)).toBeUndefined();
    expect(await store().conversations.get(app.id, uid('conv'))).toBeUndefined();
  });

  it('refuses a duplicate conversation id', async () => {
    const { conversation } = await seedTurn(store());
    await expect(store().conversations.insert(conversation)).rejects.toBeInstanceOf(DuplicateKeyError);
  });

  it('compareAndSet applies the patch and increments the version', async () => {
    const { app, conversation, turn } = await seedTurn(store());
    const updated = await store().conversations.compareAndSet(conversation.id, 0, {
      activeTurnId: turn.id,
      headTurnId: turn.id,
      updatedAt: at(5),
    });
    expect(updated).toEqual({
      ...conversation,
      version: 1,
      activeTurnId: turn.id,
      headTurnId: turn.id,
      updatedAt: at(5),
    });
    expect(await store().conversations.get(app.id, conversation.id)).toEqual(updated);

    // Absent fields stay; null clears.
    const cleared = await store().conversations.compareAndSet(conversation.id, 1, {
      activeTurnId: null,
      updatedAt: at(6),
    });
    expect(cleared).toMatchObject({ version: 2, activeTurnId: null, headTurnId: turn.id, updatedAt: at(6) });
  });

  it('compareAndSet with a stale version changes nothing', async () => {
    const { app, conversation, turn } = await seedTurn(store());
    expect(
      await store().conversations.compareAndSet(conversation.id, 7, { activeTurnId: turn.id, updatedAt: at(5) }),
    ).toBeUndefined();
    expect(await store().conversations.get(app.id, conversation.id)).toEqual(conversation);
    expect(await store().conversations.compareAndSet(uid('conv'), 0, { updatedAt: at(5) })).toBeUndefined();
  });

  it('lets exactly one of two compareAndSet calls with the same expected version win', async () => {
    const { app, conversation } = await seedTurn(store());
    const first = await addTurn(store(), conversation);
    const second = await addTurn(store(), conversation);
    const results = await Promise.all([
      store().conversations.compareAndSet(conversation.id, 0, { activeTurnId: first.id, updatedAt: at(1) }),
      store().conversations.compareAndSet(conversation.id, 0, { activeTurnId: second.id, updatedAt: at(1) }),
    ]);
    const winners = results.filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    const stored = await store().conversations.get(app.id, conversation.id);
    expect(stored?.version).toBe(1);
    expect(stored?.activeTurnId).toBe(winners[0]?.activeTurnId);
  });
});

describe.each(backends)('turns ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('inserts and reads a turn with its JSON fields', async () => {
    const { conversation } = await seedTurn(store());
    const turn = await addTurn(store(), conversation, {
      status: 'failed',
      options: { tools: [], toolChoice: { type: 'tool', name: 'get_weather' }, maxSteps: 2, parallelToolCalls: false },
      finishReason: 'error',
      error: { code: 'model_error', message: 'boom' },
      stepCount: 2,
      usage: { inputTokens: 10, outputTokens: 5 },
      completedAt: at(9),
    });
    expect(await store().turns.get(turn.id)).toEqual(turn);
    expect(await store().turns.get(uid('turn'))).toBeUndefined();
    await expect(store().turns.insert(turn)).rejects.toBeInstanceOf(DuplicateKeyError);
  });

  it('updates only from one of the given statuses', async () => {
    const { turn } = await seedTurn(store());
    const paused = await store().turns.update(turn.id, ['in_progress'], {
      status: 'requires_action',
      finishReason: 'tool_use',
      stepCount: 1,
      usage: { inputTokens: 3, outputTokens: 4 },
      updatedAt: at(2),
    });
    expect(paused).toEqual({
      ...turn,
      status: 'requires_action',
      finishReason: 'tool_use',
      stepCount: 1,
      usage: { inputTokens: 3, outputTokens: 4 },
      updatedAt: at(2),
    });

    // Not in_progress any more: refused, nothing written.
    expect(
      await store().turns.update(turn.id, ['in_progress'], { status: 'completed', updatedAt: at(3) }),
    ).toBeUndefined();
    expect(await store().turns.update(turn.id, [], { status: 'completed', updatedAt: at(3) })).toBeUndefined();
    expect((await store().turns.get(turn.id))?.status).toBe('requires_action');

    const failed = await store().turns.update(turn.id, ['in_progress', 'requires_action'], {
      status: 'failed',
      finishReason: 'error',
      error: { code: 'x', message: 'y' },
      completedAt: at(4),
      updatedAt: at(4),
    });
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: 'x', message: 'y' },
      completedAt: at(4),
      stepCount: 1,
    });

    const cleared = await store().turns.update(turn.id, ['failed'], {
      error: null,
      finishReason: null,
      updatedAt: at(5),
    });
    expect(cleared).toMatchObject({ status: 'failed', error: null, finishReason: null });
  });

  it('bumps the version of a conversation of its app whatever it is, and of no other app', async () => {
    const { conversation } = await seedTurn(store());
    const bumped = await store().conversations.bump(conversation.appId, conversation.id, {
      activeTurnId: null,
      updatedAt: at(50),
    });
    expect(bumped).toMatchObject({ version: conversation.version + 1, activeTurnId: null, updatedAt: at(50) });
    const again = await store().conversations.bump(conversation.appId, conversation.id, { updatedAt: at(51) });
    expect(again?.version).toBe(conversation.version + 2);
    expect(await store().conversations.bump('app_other', conversation.id, { updatedAt: at(52) })).toBeUndefined();
    expect((await store().conversations.get(conversation.appId, conversation.id))?.version).toBe(
      conversation.version + 2,
    );
  });

  it('lets exactly one of two racing transitions apply', async () => {
    const { turn } = await seedTurn(store());
    const results = await Promise.all([
      store().turns.update(turn.id, ['in_progress'], { status: 'completed', updatedAt: at(1) }),
      store().turns.update(turn.id, ['in_progress'], { status: 'cancelled', updatedAt: at(1) }),
    ]);
    const winners = results.filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    expect((await store().turns.get(turn.id))?.status).toBe(winners[0]?.status);
  });

  it('guards a write on the lease that holds the turn, and hands a silent turn to one new lease', async () => {
    const { conversation } = await seedTurn(store());
    const turn = await addTurn(store(), conversation, { updatedAt: at(10), leaseToken: 'lease_a' });
    expect(await store().turns.update(turn.id, ['in_progress'], { updatedAt: at(11) }, 'lease_b')).toBeUndefined();
    expect(await store().turns.update(turn.id, ['in_progress'], { updatedAt: at(11) }, 'lease_a')).toMatchObject({
      leaseToken: 'lease_a',
      updatedAt: at(11),
    });
    // Renewed at 11: not silent before 11, so not taken.
    expect(await store().turns.takeOver(turn.id, at(11), 'lease_b', at(30))).toBeUndefined();
    const [first, second] = await Promise.all([
      store().turns.takeOver(turn.id, at(20), 'lease_b', at(30)),
      store().turns.takeOver(turn.id, at(20), 'lease_c', at(30)),
    ]);
    const taken = [first, second].filter((won) => won !== undefined);
    expect(taken).toHaveLength(1);
    expect(taken[0]).toMatchObject({ takeovers: 1, updatedAt: at(30), status: 'in_progress' });
    const holder = taken[0]!.leaseToken!;
    // The old holder is fenced; the new one writes, and may hand the lease on (a resume).
    expect(await store().turns.update(turn.id, ['in_progress'], { updatedAt: at(31) }, 'lease_a')).toBeUndefined();
    const paused = await store().turns.update(
      turn.id,
      ['in_progress'],
      { status: 'requires_action', updatedAt: at(31) },
      holder,
    );
    expect(paused?.status).toBe('requires_action');
    const resumed = await store().turns.update(turn.id, ['requires_action'], {
      status: 'in_progress',
      updatedAt: at(32),
      leaseToken: 'lease_d',
    });
    expect(resumed).toMatchObject({ leaseToken: 'lease_d', takeovers: 1 });
    // Only running turns are taken over.
    await store().turns.update(turn.id, ['in_progress'], { status: 'completed', updatedAt: at(33) });
    expect(await store().turns.takeOver(turn.id, at(99), 'lease_e', at(99))).toBeUndefined();
  });

  it('lists stale in-progress turns, oldest first, up to the limit', async () => {
    await withFreshStore(backend, async (fresh) => {
      const { conversation, turn: base } = await seedTurn(fresh);
      await fresh.turns.update(base.id, ['in_progress'], { status: 'completed', updatedAt: at(1) });
      const old2 = await addTurn(fresh, conversation, { updatedAt: at(20) });
      const old1 = await addTurn(fresh, conversation, { updatedAt: at(10) });
      await addTurn(fresh, conversation, { updatedAt: at(100) }); // recent
      await addTurn(fresh, conversation, { updatedAt: at(5), status: 'requires_action' }); // not running

      expect((await fresh.turns.listStale(at(50), 10)).map((t) => t.id)).toEqual([old1.id, old2.id]);
      expect((await fresh.turns.listStale(at(50), 1)).map((t) => t.id)).toEqual([old1.id]);
      // Strictly older than `before`.
      expect((await fresh.turns.listStale(at(10), 10)).map((t) => t.id)).toEqual([]);
    });
  });
});
