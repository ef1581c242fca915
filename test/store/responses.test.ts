import { describe, expect, it } from 'vitest';
import type { QueuedInputRecord } from '../../src/domain/records.ts';
import type { Store } from '../../src/store/store.ts';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore, withFreshStore } from './store-backends.ts';
import {
  addConversation,
  addTurn,
  at,
  ledgerEntry,
  responseRecord,
  seedTurn,
  uid,
  userMessage,
} from './store-fixtures.ts';
import type { Seeded } from './store-fixtures.ts';

/** Past 2^32: Postgres hands bigint back as a string or bigint, the repo must still return numbers. */
const BIG = 5_000_000_000;

describe.each(backends)('responses ($name)', (backend) => {
  const store = useSharedStore(backend);

  it('inserts and reads a response with its JSON fields, scoped by app', async () => {
    const { app, turn } = await seedTurn(store());
    const response = responseRecord(turn, {
      previousResponseId: uid('resp'),
      inputFirstSeq: BIG + 1,
      inputLastSeq: BIG + 3,
      usageBefore: { inputTokens: 120, outputTokens: 45 },
      echo: {
        model: 'support',
        tools: [{ type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object' } }],
        temperature: 0.25,
        metadata: { customer: 'c-42', note: 'héllo ✓ "quoted"' },
        instructions: null,
        empty: {},
        list: [],
      },
      stored: false,
      ownsConversation: false,
      createdAt: at(7),
    });
    await store().responses.insert(response);
    expect(await store().responses.get(app.id, response.id)).toEqual(response);
    expect(await store().responses.get(uid('other-app'), response.id)).toBeUndefined();
    expect(await store().responses.get(app.id, uid('resp'))).toBeUndefined();

    const flags = responseRecord(turn, { inputFirstSeq: BIG + 4, inputLastSeq: BIG + 4 });
    await store().responses.insert(flags);
    expect(await store().responses.get(app.id, flags.id)).toEqual(flags);
    expect(flags).toMatchObject({ stored: true, ownsConversation: true });
  });

  it('hides a response (unreadable, not owning) in its app only, and counts the stored ones', async () => {
    const { app, turn, conversation } = await seedTurn(store());
    const first = responseRecord(turn, { inputFirstSeq: 1, inputLastSeq: 1 });
    const second = responseRecord(turn, { inputFirstSeq: 2, inputLastSeq: 2 });
    for (const response of [first, second]) await store().responses.insert(response);
    expect(await store().responses.countStoredInConversation(conversation.id)).toBe(2);
    expect(await store().responses.hide(uid('app'), first.id)).toBe(false);
    expect(await store().responses.hide(app.id, first.id)).toBe(true);
    expect(await store().responses.get(app.id, first.id)).toMatchObject({ stored: false, ownsConversation: false });
    expect(await store().responses.countStoredInConversation(conversation.id)).toBe(1);
    expect(await store().responses.countInConversation(conversation.id)).toBe(2);
    expect(await store().responses.hide(app.id, uid('resp'))).toBe(false);
  });

  it('refuses a duplicate id', async () => {
    const { turn } = await seedTurn(store());
    const response = responseRecord(turn);
    await store().responses.insert(response);
    await expect(store().responses.insert({ ...response, inputFirstSeq: 9, inputLastSeq: 9 })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
  });

  it('finds the next response of a conversation by input seq', async () => {
    const { agent, conversation, turn } = await seedTurn(store());
    const later = await addTurn(store(), conversation);
    // Inserted out of order; the order comes from inputFirstSeq alone.
    const third = responseRecord(later, { inputFirstSeq: BIG + 30, inputLastSeq: BIG + 31 });
    const first = responseRecord(turn, { inputFirstSeq: BIG + 10, inputLastSeq: BIG + 12 });
    const second = responseRecord(turn, {
      inputFirstSeq: BIG + 20,
      inputLastSeq: BIG + 20,
      previousResponseId: first.id,
    });
    for (const response of [third, first, second]) await store().responses.insert(response);
    // Another conversation's response in between must not be picked.
    const other = await addConversation(store(), agent);
    await store().responses.insert(responseRecord(other.turn, { inputFirstSeq: BIG + 15, inputLastSeq: BIG + 15 }));

    const next = (afterSeq: number) => store().responses.nextInConversation(conversation.id, afterSeq);
    expect(await next(0)).toEqual(first);
    expect(await next(BIG + 10)).toEqual(second);
    expect(await next(BIG + 15)).toEqual(second);
    expect(await next(BIG + 20)).toEqual(third);
    expect(await next(BIG + 30)).toBeUndefined();
    expect(await store().responses.nextInConversation(uid('conv'), 0)).toBeUndefined();
  });

  it('returns the latest response and counts a conversation’s responses', async () => {
    const { agent, conversation, turn } = await seedTurn(store());
    const empty = await addConversation(store(), agent);
    expect(await store().responses.latestInConversation(conversation.id)).toBeUndefined();
    expect(await store().responses.countInConversation(conversation.id)).toBe(0);

    const responses = [BIG + 40, BIG + 60, BIG + 50].map((seq) =>
      responseRecord(turn, { inputFirstSeq: seq, inputLastSeq: seq }),
    );
    for (const response of responses) await store().responses.insert(response);
    expect(await store().responses.latestInConversation(conversation.id)).toEqual(responses[1]);
    expect(await store().responses.countInConversation(conversation.id)).toBe(3);
    expect(await store().responses.latestInConversation(empty.conversation.id)).toBeUndefined();
    expect(await store().responses.countInConversation(empty.conversation.id)).toBe(0);
  });

  it('deletes a response, scoped by app', async () => {
    const { app, conversation, turn } = await seedTurn(store());
    const response = responseRecord(turn);
    await store().responses.insert(response);
    expect(await store().responses.delete(uid('other-app'), response.id)).toBe(false);
    expect(await store().responses.get(app.id, response.id)).toEqual(response);
    expect(await store().responses.delete(app.id, response.id)).toBe(true);
    expect(await store().responses.get(app.id, response.id)).toBeUndefined();
    expect(await store().responses.delete(app.id, response.id)).toBe(false);
    expect(await store().responses.countInConversation(conversation.id)).toBe(0);
  });

  it('lists unstored responses owning their conversation created before a time, oldest first, up to the limit', async () => {
    await withFreshStore(backend, async (fresh) => {
      const { turn } = await seedTurn(fresh);
      const unstored = (seconds: number, id = uid('resp')) =>
        responseRecord(turn, {
          id,
          stored: false,
          createdAt: at(seconds),
          inputFirstSeq: seconds,
          inputLastSeq: seconds,
        });
      // Same instant: id breaks the tie, compared bytewise ('B' < 'a') on both dialects.
      const tieLower = unstored(5, 'resp_a');
      const tieUpper = unstored(5, 'resp_B');
      const old = unstored(10);
      const older = unstored(20);
      const recent = unstored(100);
      const kept = responseRecord(turn, { stored: true, createdAt: at(1), inputFirstSeq: 1, inputLastSeq: 1 });
      // Unstored but not owning its conversation (a deleted response, a store:false continuation): never purged.
      const borrowed = responseRecord(turn, {
        stored: false,
        ownsConversation: false,
        createdAt: at(2),
        inputFirstSeq: 2,
        inputLastSeq: 2,
      });
      for (const response of [older, recent, tieLower, kept, borrowed, old, tieUpper])
        await fresh.responses.insert(response);

      expect(await fresh.responses.listUnstoredBefore(at(50), 10)).toEqual([tieUpper, tieLower, old, older]);
      expect((await fresh.responses.listUnstoredBefore(at(50), 2)).map((r) => r.id)).toEqual([
        tieUpper.id,
        tieLower.id,
      ]);
      // Strictly before the cutoff.
      expect((await fresh.responses.listUnstoredBefore(at(10), 10)).map((r) => r.id)).toEqual([
        tieUpper.id,
        tieLower.id,
      ]);
      expect(await fresh.responses.listUnstoredBefore(at(1), 10)).toEqual([]);
      expect(await fresh.responses.listUnstoredBefore(at(50), 0)).toEqual([]);
    });
  });
});

describe.each(backends)('conversation delete ($name)', (backend) => {
  const store = useSharedStore(backend);

  /** A conversation holding one row of every kind that belongs to it, over two turns. */
  async function populate(s: Store, seeded: Pick<Seeded, 'app' | 'agent' | 'conversation' | 'turn'>) {
    const { app, agent, conversation, turn } = seeded;
    const second = await addTurn(s, conversation);
    const items = await s.items.append([userMessage(turn, 'hi'), userMessage(second, 'again')]);
    const entries = [ledgerEntry(turn, agent.name), ledgerEntry(second, agent.name)];
    await s.ledger.insert(entries);
    const input: QueuedInputRecord = {
      id: uid('input'),
      appId: app.id,
      conversationId: conversation.id,
      content: [{ type: 'text', text: 'later' }],
      options: { tools: [] },
      createdAt: at(2),
    };
    await s.queuedInputs.insert(input);
    const responses = [
      responseRecord(turn, { inputFirstSeq: items[0]?.seq ?? 0, inputLastSeq: items[0]?.seq ?? 0 }),
      responseRecord(second, { inputFirstSeq: items[1]?.seq ?? 0, inputLastSeq: items[1]?.seq ?? 0, stored: false }),
    ];
    for (const response of responses) await s.responses.insert(response);
    return { ...seeded, turns: [turn, second], items, entries, input, responses };
  }
  type Populated = Awaited<ReturnType<typeof populate>>;

  async function expectIntact(s: Store, p: Populated) {
    expect(await s.conversations.get(p.app.id, p.conversation.id)).toEqual(p.conversation);
    expect((await s.items.list(p.conversation.id, { limit: 10 })).data).toEqual(p.items);
    for (const turn of p.turns) expect((await s.turns.get(turn.id))?.id).toBe(turn.id);
    for (const entry of p.entries) expect(await s.ledger.get(p.app.id, entry.id)).toEqual(entry);
    expect(await s.queuedInputs.listByConversation(p.conversation.id)).toEqual([p.input]);
    for (const response of p.responses) expect(await s.responses.get(p.app.id, response.id)).toEqual(response);
  }

  async function expectGone(s: Store, p: Populated) {
    expect(await s.conversations.get(p.app.id, p.conversation.id)).toBeUndefined();
    expect((await s.items.list(p.conversation.id, { limit: 10 })).data).toEqual([]);
    for (const turn of p.turns) {
      expect(await s.turns.get(turn.id)).toBeUndefined();
      expect(await s.items.listByTurn(turn.id)).toEqual([]);
      expect(await s.ledger.listByTurn(turn.id)).toEqual([]);
    }
    for (const entry of p.entries) expect(await s.ledger.get(p.app.id, entry.id)).toBeUndefined();
    expect(await s.queuedInputs.listByConversation(p.conversation.id)).toEqual([]);
    for (const response of p.responses) expect(await s.responses.get(p.app.id, response.id)).toBeUndefined();
    expect(await s.responses.countInConversation(p.conversation.id)).toBe(0);
  }

  it('deletes the conversation and every row that belongs to it, and nothing else', async () => {
    const seeded = await seedTurn(store());
    const doomed = await populate(store(), seeded);
    const sibling = await populate(store(), { ...seeded, ...(await addConversation(store(), seeded.agent)) });

    expect(await store().conversations.delete(seeded.app.id, seeded.conversation.id)).toBe(true);
    await expectGone(store(), doomed);
    await expectIntact(store(), sibling);
    // The agent is not the conversation's: it stays.
    expect(await store().agents.get(seeded.app.id, seeded.agent.name)).toEqual(seeded.agent);

    expect(await store().conversations.delete(seeded.app.id, seeded.conversation.id)).toBe(false);
  });

  it('returns false and deletes nothing for an unknown id or another app', async () => {
    const seeded = await seedTurn(store());
    const populated = await populate(store(), seeded);
    const other = await seedTurn(store());

    expect(await store().conversations.delete(seeded.app.id, uid('conv'))).toBe(false);
    expect(await store().conversations.delete(other.app.id, seeded.conversation.id)).toBe(false);
    await expectIntact(store(), populated);
  });

  it('joins an enclosing transaction: commits with it, and rolls back with it', async () => {
    const first = await populate(store(), await seedTurn(store()));
    const failure = new Error('rolled back');
    await expect(
      store().transaction(async (tx) => {
        expect(await tx.conversations.delete(first.app.id, first.conversation.id)).toBe(true);
        // The transaction sees its own delete.
        expect(await tx.conversations.get(first.app.id, first.conversation.id)).toBeUndefined();
        expect(await tx.responses.countInConversation(first.conversation.id)).toBe(0);
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expectIntact(store(), first);

    const deleted = await store().transaction((tx) => tx.conversations.delete(first.app.id, first.conversation.id));
    expect(deleted).toBe(true);
    await expectGone(store(), first);
  });
});
