import { describe, expect, it } from 'vitest';
import { backends, useSharedStore } from './store-backends.ts';
import {
  agentRecord,
  appRecord,
  at,
  conversationRecord,
  ledgerEntry,
  seedTurn,
  turnRecord,
  userMessage,
} from './store-fixtures.ts';

describe.each(backends)('transactions ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('commits everything written through the tx repositories and returns the result', async () => {
    const app = appRecord();
    const agent = agentRecord(app.id, 'support');
    const conversation = conversationRecord(agent);
    const turn = turnRecord(conversation);
    const result = await store().transaction(async (tx) => {
      // Children first: foreign keys are checked at commit.
      await tx.turns.insert(turn);
      await tx.conversations.insert(conversation);
      await tx.agents.insert(agent);
      await tx.apps.insert(app);
      const items = await tx.items.append([userMessage(turn, 'hi')]);
      const moved = await tx.conversations.compareAndSet(conversation.id, 0, {
        activeTurnId: turn.id,
        updatedAt: at(1),
      });
      // Reads inside see the transaction's own writes.
      return { seq: items[0]?.seq, version: moved?.version, count: await tx.ledger.countPending(conversation.id) };
    });
    expect(result).toEqual({ seq: expect.any(Number), version: 1, count: 0 });
    expect((await store().conversations.get(app.id, conversation.id))?.activeTurnId).toBe(turn.id);
    expect(await store().items.listByTurn(turn.id)).toHaveLength(1);
    expect((await store().agents.getVersion(agent.id, 1))?.agentId).toBe(agent.id);
  });

  it('rolls back every write when the work throws', async () => {
    const { app, agent, conversation, turn } = await seedTurn(store());
    const entry = ledgerEntry(turn, agent.name);
    const newcomer = appRecord();
    const failure = new Error('engine blew up');

    await expect(
      store().transaction(async (tx) => {
        await tx.apps.insert(newcomer);
        await tx.ledger.insert([entry]);
        await tx.items.append([userMessage(turn, 'lost')]);
        await tx.conversations.compareAndSet(conversation.id, 0, { activeTurnId: turn.id, updatedAt: at(1) });
        await tx.turns.update(turn.id, ['in_progress'], { status: 'requires_action', updatedAt: at(1) });
        await tx.agents.update(app.id, agent.name, 1, { ...agent.definition, instructions: 'lost' }, at(1));
        await tx.idempotency.reserve(app.id, 'idem', 'hash', at(1), { owner: 'process-a', expiresAt: at(31) });
        throw failure;
      }),
    ).rejects.toBe(failure);

    expect(await store().apps.get(newcomer.id)).toBeUndefined();
    expect(await store().ledger.get(app.id, entry.id)).toBeUndefined();
    expect(await store().items.listByTurn(turn.id)).toEqual([]);
    expect(await store().conversations.get(app.id, conversation.id)).toEqual(conversation);
    expect((await store().turns.get(turn.id))?.status).toBe('in_progress');
    expect(await store().agents.get(app.id, agent.name)).toEqual(agent);
    expect(await store().agents.getVersion(agent.id, 2)).toBeUndefined();
    expect(await store().idempotency.get(app.id, 'idem')).toBeUndefined();
  });

  it('rejects a transaction that leaves a dangling reference', async () => {
    const app = appRecord();
    const orphan = conversationRecord(agentRecord(app.id, 'support'));
    // The app is never inserted: the deferred foreign key fails the commit.
    await expect(store().transaction((tx) => tx.conversations.insert(orphan))).rejects.toThrow();
    expect(await store().conversations.get(app.id, orphan.id)).toBeUndefined();
  });
});
