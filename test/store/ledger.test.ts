import { describe, expect, it } from 'vitest';
import { InvalidCursorError } from '../../src/domain/invalid-cursor-error.ts';
import type { LedgerResolution } from '../../src/domain/records.ts';
import { DuplicateKeyError } from '../../src/store/store.ts';
import type { LedgerFilter } from '../../src/domain/queries.ts';
import { backends, useSharedStore, withFreshStore } from './store-backends.ts';
import {
  addConversation,
  addTurn,
  agentRecord,
  at,
  conversationRecord,
  ledgerEntry,
  seedTurn,
  uid,
} from './store-fixtures.ts';

function resolution(overrides: Partial<LedgerResolution> = {}): LedgerResolution {
  return {
    state: 'completed',
    result: [{ type: 'text', text: '18°C, sunny' }],
    isError: false,
    submittedBy: 'key_1',
    submittedAt: at(30),
    idempotencyKey: 'idem-1',
    ...overrides,
  };
}

describe.each(backends)('ledger ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('inserts entries and reads them back, scoped by app', async () => {
    const { app, agent, turn } = await seedTurn(store());
    const entry = ledgerEntry(turn, agent.name, {
      kind: 'approval',
      arguments: { city: 'Paris', days: [1, 2], nested: { ok: true, none: null } },
      deadlineAt: at(100),
      timeoutPolicy: 'cancel',
    });
    await store().ledger.insert([entry]);
    expect(await store().ledger.get(app.id, entry.id)).toEqual(entry);
    expect(await store().ledger.get(uid('other-app'), entry.id)).toBeUndefined();
    await expect(store().ledger.insert([entry])).rejects.toBeInstanceOf(DuplicateKeyError);
    await store().ledger.insert([]);
  });

  it('lists a turn’s entries by step, then callIndex', async () => {
    const { agent, conversation, turn } = await seedTurn(store());
    const step1b = ledgerEntry(turn, agent.name, { callIndex: 1, createdAt: at(10) });
    const step1a = ledgerEntry(turn, agent.name, { callIndex: 0, createdAt: at(10) });
    const step2a = ledgerEntry(turn, agent.name, { callIndex: 0, createdAt: at(20) });
    await store().ledger.insert([step2a, step1b, step1a]);
    const other = await addTurn(store(), conversation);
    await store().ledger.insert([ledgerEntry(other, agent.name)]);
    expect((await store().ledger.listByTurn(turn.id)).map((e) => e.id)).toEqual([step1a.id, step1b.id, step2a.id]);
  });

  it('reads a turn with its entries in one go, in the same order and shape as listByTurn', async () => {
    const { agent, conversation, turn } = await seedTurn(store());
    const resolved = ledgerEntry(turn, agent.name, {
      callIndex: 1,
      createdAt: at(10),
      state: 'completed',
      result: [{ type: 'text', text: 'done' }],
      isError: true,
      submittedBy: 'key_1',
      submittedAt: at(11),
    });
    const pending = ledgerEntry(turn, agent.name, { callIndex: 0, createdAt: at(10), deadlineAt: at(99) });
    await store().ledger.insert([resolved, pending]);
    const read = await store().turns.getWithCalls(turn.id);
    expect(read?.turn).toEqual(await store().turns.get(turn.id));
    expect(read?.calls).toEqual(await store().ledger.listByTurn(turn.id));
    expect(read?.calls.map((call) => call.id)).toEqual([pending.id, resolved.id]);

    const quiet = await addTurn(store(), conversation);
    expect(await store().turns.getWithCalls(quiet.id)).toEqual({ turn: quiet, calls: [] });
    expect(await store().turns.getWithCalls(uid('turn'))).toBeUndefined();
  });

  it('reads a conversation with its active turn and that turn’s entries in one go, scoped by app', async () => {
    const { app, agent, conversation, turn } = await seedTurn(store());
    expect(await store().conversations.getWithActiveTurn(app.id, conversation.id)).toEqual({
      conversation: await store().conversations.get(app.id, conversation.id),
      active: undefined,
    });

    const later = ledgerEntry(turn, agent.name, { callIndex: 1, createdAt: at(10), state: 'completed', isError: true });
    const first = ledgerEntry(turn, agent.name, { callIndex: 0, createdAt: at(10), deadlineAt: at(99) });
    await store().ledger.insert([later, first]);
    const other = await addTurn(store(), conversation);
    await store().ledger.insert([ledgerEntry(other, agent.name)]);
    const moved = await store().conversations.compareAndSet(conversation.id, conversation.version, {
      activeTurnId: turn.id,
      updatedAt: at(20),
    });
    const read = await store().conversations.getWithActiveTurn(app.id, conversation.id);
    expect(read).toEqual({ conversation: moved, active: await store().turns.getWithCalls(turn.id) });
    expect(read?.active?.calls.map((call) => call.id)).toEqual([first.id, later.id]);

    const quiet = await store().conversations.compareAndSet(conversation.id, moved!.version, {
      activeTurnId: (await addTurn(store(), conversation, { status: 'requires_action' })).id,
      updatedAt: at(30),
    });
    const quietRead = await store().conversations.getWithActiveTurn(app.id, conversation.id);
    expect(quietRead?.conversation).toEqual(quiet);
    expect(quietRead?.active?.turn.status).toBe('requires_action');
    expect(quietRead?.active?.calls).toEqual([]);

    expect(await store().conversations.getWithActiveTurn(uid('other-app'), conversation.id)).toBeUndefined();
    expect(await store().conversations.getWithActiveTurn(app.id, uid('conv'))).toBeUndefined();
  });

  it('resolves a pending entry once; the second resolution returns undefined', async () => {
    const { app, agent, turn } = await seedTurn(store());
    const entry = ledgerEntry(turn, agent.name);
    await store().ledger.insert([entry]);

    const resolved = await store().ledger.resolve(entry.id, resolution({ isError: true, state: 'failed' }));
    expect(resolved).toEqual({
      ...entry,
      state: 'failed',
      result: [{ type: 'text', text: '18°C, sunny' }],
      isError: true,
      submittedBy: 'key_1',
      submittedAt: at(30),
      idempotencyKey: 'idem-1',
      updatedAt: at(30),
    });
    expect(await store().ledger.resolve(entry.id, resolution({ submittedAt: at(40) }))).toBeUndefined();
    expect(await store().ledger.get(app.id, entry.id)).toEqual(resolved);
    expect(await store().ledger.resolve(uid('call'), resolution())).toBeUndefined();
  });

  it('lets exactly one of two concurrent resolutions apply', async () => {
    const { app, agent, turn } = await seedTurn(store());
    const entry = ledgerEntry(turn, agent.name);
    await store().ledger.insert([entry]);
    const results = await Promise.all([
      store().ledger.resolve(entry.id, resolution({ submittedBy: 'a' })),
      store().ledger.resolve(entry.id, resolution({ submittedBy: 'b', state: 'denied' })),
    ]);
    const winners = results.filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    expect((await store().ledger.get(app.id, entry.id))?.submittedBy).toBe(winners[0]?.submittedBy);
  });

  it('filters the list by state, agent, conversation and tool, within the app', async () => {
    const { app, agent, conversation, turn } = await seedTurn(store(), 'support');
    const sales = agentRecord(app.id, 'sales');
    await store().agents.insert(sales);
    const salesConversation = conversationRecord(sales);
    await store().conversations.insert(salesConversation);
    const salesTurn = await addTurn(store(), salesConversation);
    const second = await addConversation(store(), agent);

    const a = ledgerEntry(turn, 'support', { toolName: 'get_weather', createdAt: at(1) });
    const b = ledgerEntry(turn, 'support', { toolName: 'send_email', createdAt: at(2) });
    const c = ledgerEntry(salesTurn, 'sales', { toolName: 'get_weather', createdAt: at(3) });
    const d = ledgerEntry(second.turn, 'support', { toolName: 'get_weather', createdAt: at(4) });
    await store().ledger.insert([a, b, c, d]);
    await store().ledger.resolve(b.id, resolution());

    const ids = async (filter: Omit<LedgerFilter, 'appId'>) =>
      (await store().ledger.list({ appId: app.id, ...filter }, { limit: 50 })).data.map((e) => e.id);

    expect(await ids({})).toEqual([a.id, b.id, c.id, d.id]);
    expect(await ids({ state: 'pending' })).toEqual([a.id, c.id, d.id]);
    expect(await ids({ state: 'completed' })).toEqual([b.id]);
    expect(await ids({ agentName: 'sales' })).toEqual([c.id]);
    expect(await ids({ conversationId: conversation.id })).toEqual([a.id, b.id]);
    expect(await ids({ toolName: 'get_weather' })).toEqual([a.id, c.id, d.id]);
    expect(await ids({ toolName: 'get_weather', agentName: 'support', state: 'pending' })).toEqual([a.id, d.id]);

    // Another app sees none of it.
    expect((await store().ledger.list({ appId: uid('app') }, { limit: 50 })).data).toEqual([]);
    expect(await store().ledger.get(uid('app'), a.id)).toBeUndefined();
  });

  it('pages by createdAt then id, across pages, with ties on createdAt', async () => {
    const { app, agent, turn } = await seedTurn(store());
    const ids = ['call_e', 'call_a', 'call_d', 'call_b', 'call_c'].map((id) => `${id}_${uid('x')}`);
    // Two share a createdAt, so the id tiebreak decides their order.
    const times = [at(5), at(1), at(3), at(3), at(4)];
    await store().ledger.insert(
      ids.map((id, i) => ledgerEntry(turn, agent.name, { id, createdAt: times[i] ?? at(0) })),
    );
    const expected = [...ids]
      .map((id, i) => ({ id, createdAt: times[i] ?? '' }))
      .sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? -1 : 1) : x.createdAt < y.createdAt ? -1 : 1))
      .map((x) => x.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await store().ledger.list({ appId: app.id }, { limit: 2, cursor });
      seen.push(...page.data.map((e) => e.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
  });

  it('rejects a malformed cursor', async () => {
    const { app } = await seedTurn(store());
    const wrongShape = Buffer.from(JSON.stringify({ createdAt: at(1) })).toString('base64url');
    await expect(store().ledger.list({ appId: app.id }, { limit: 2, cursor: wrongShape })).rejects.toThrow(
      InvalidCursorError,
    );
    await expect(store().ledger.list({ appId: app.id }, { limit: 2, cursor: '' })).rejects.toThrow(InvalidCursorError);
  });

  it('lists due entries: pending, deadline at or before now, oldest deadline first', async () => {
    await withFreshStore(backend, async (fresh) => {
      const { agent, turn } = await seedTurn(fresh);
      const late = ledgerEntry(turn, agent.name, { deadlineAt: at(50) });
      const early = ledgerEntry(turn, agent.name, { deadlineAt: at(20) });
      const exactlyNow = ledgerEntry(turn, agent.name, { deadlineAt: at(60) });
      const future = ledgerEntry(turn, agent.name, { deadlineAt: at(61) });
      const noDeadline = ledgerEntry(turn, agent.name, { deadlineAt: null });
      const resolved = ledgerEntry(turn, agent.name, { deadlineAt: at(10) });
      await fresh.ledger.insert([late, early, exactlyNow, future, noDeadline, resolved]);
      await fresh.ledger.resolve(resolved.id, resolution());

      expect((await fresh.ledger.listDue(at(60), 10)).map((e) => e.id)).toEqual([early.id, late.id, exactlyNow.id]);
      expect((await fresh.ledger.listDue(at(60), 2)).map((e) => e.id)).toEqual([early.id, late.id]);
      expect(await fresh.ledger.listDue(at(0), 10)).toEqual([]);
    });
  });

  it('counts pending entries of a conversation', async () => {
    const { agent, conversation, turn } = await seedTurn(store());
    const other = await addConversation(store(), agent);
    const entries = [ledgerEntry(turn, agent.name), ledgerEntry(turn, agent.name), ledgerEntry(turn, agent.name)];
    await store().ledger.insert([...entries, ledgerEntry(other.turn, agent.name)]);
    expect(await store().ledger.countPending(conversation.id)).toBe(3);
    await store().ledger.resolve(entries[0]?.id ?? '', resolution());
    expect(await store().ledger.countPending(conversation.id)).toBe(2);
    expect(await store().ledger.countPending(uid('conv'))).toBe(0);
  });
});
