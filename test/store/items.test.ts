import { describe, expect, it } from 'vitest';
import { InvalidCursorError } from '../../src/domain/invalid-cursor-error.ts';
import type { NewItem } from '../../src/domain/records.ts';
import { DuplicateKeyError } from '../../src/store/store.ts';
import { backends, useSharedStore } from './store-backends.ts';
import { addConversation, addTurn, at, seedTurn, uid, userMessage } from './store-fixtures.ts';
import type { Seeded } from './store-fixtures.ts';

function texts(items: { payload: NewItem['payload'] }[]): string[] {
  return items.map((item) => {
    const part = item.payload.type === 'message' ? item.payload.content[0] : undefined;
    return part?.type === 'text' ? part.text : `<${item.payload.type}>`;
  });
}

describe.each(backends)('items ($name)', (backend) => {
  const store = useSharedStore(backend);

  async function appendTexts(seeded: Seeded, words: string[]): Promise<void> {
    await store().items.append(words.map((word) => userMessage(seeded.turn, word)));
  }

  it('appends in order and returns the items with increasing numeric seq', async () => {
    const seeded = await seedTurn(store());
    const { turn } = seeded;
    const groupId = uid('group');
    const batch: NewItem[] = [
      userMessage(turn, 'hello'),
      {
        id: uid('item'),
        conversationId: turn.conversationId,
        turnId: turn.id,
        groupId,
        payload: {
          type: 'function_call',
          callId: 'call_1',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
          executor: 'client',
        },
        createdAt: at(2),
      },
      {
        id: uid('item'),
        conversationId: turn.conversationId,
        turnId: turn.id,
        groupId,
        payload: {
          type: 'function_call_output',
          callId: 'call_1',
          name: 'get_weather',
          output: [{ type: 'text', text: 'sunny' }],
          isError: false,
          synthetic: true,
        },
        createdAt: at(3),
      },
    ];
    const appended = await store().items.append(batch);
    expect(appended.map(({ seq: _seq, ...item }) => item)).toEqual(batch);
    for (const item of appended) expect(typeof item.seq).toBe('number');
    const seqs = appended.map((item) => item.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(3);

    const later = await store().items.append([userMessage(turn, 'again')]);
    expect(later[0]?.seq).toBeGreaterThan(seqs[2] ?? Infinity);

    const page = await store().items.list(turn.conversationId, { limit: 10 });
    expect(page.data).toEqual([...appended, ...later]);
    expect(page.nextCursor).toBeNull();
    expect(await store().items.append([])).toEqual([]);
  });

  it('pages through a conversation oldest first, across pages', async () => {
    const seeded = await seedTurn(store());
    await appendTexts(seeded, ['a', 'b', 'c', 'd', 'e']);
    const other = await addConversation(store(), seeded.agent);
    await store().items.append([userMessage(other.turn, 'elsewhere')]);

    const id = seeded.conversation.id;
    const first = await store().items.list(id, { limit: 2 });
    const second = await store().items.list(id, { limit: 2, cursor: first.nextCursor });
    const third = await store().items.list(id, { limit: 2, cursor: second.nextCursor });
    expect([texts(first.data), texts(second.data), texts(third.data)]).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(first.nextCursor).not.toBeNull();
    expect(third.nextCursor).toBeNull();
  });

  it('rejects a malformed cursor', async () => {
    const seeded = await seedTurn(store());
    await expect(store().items.list(seeded.conversation.id, { limit: 2, cursor: '%%%' })).rejects.toThrow(
      InvalidCursorError,
    );
    const wrongShape = Buffer.from(JSON.stringify({ seq: 'one' })).toString('base64url');
    await expect(store().items.list(seeded.conversation.id, { limit: 2, cursor: wrongShape })).rejects.toThrow(
      InvalidCursorError,
    );
  });

  it('listWindow returns the latest items oldest first, with only what a prompt needs', async () => {
    const seeded = await seedTurn(store());
    await appendTexts(seeded, ['1', '2', '3', '4', '5', '6']);
    expect(texts(await store().items.listWindow(seeded.conversation.id, 3))).toEqual(['4', '5', '6']);
    expect(texts(await store().items.listWindow(seeded.conversation.id, 100))).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(await store().items.listWindow(seeded.conversation.id, 0)).toEqual([]);
    expect(await store().items.listWindow(uid('conv'), 5)).toEqual([]);
    const window = await store().items.listWindow(seeded.conversation.id, 3);
    expect(
      window.map((item) =>
        item.payload.type === 'message' && item.payload.content[0]?.type === 'text' ? item.payload.content[0].text : '',
      ),
    ).toEqual(['4', '5', '6']);
    expect(window.map((item) => Object.keys(item).sort())).toEqual([
      ['groupId', 'payload', 'seq'],
      ['groupId', 'payload', 'seq'],
      ['groupId', 'payload', 'seq'],
    ]);
    expect(window.map((item) => item.seq)).toEqual(
      (await store().items.list(seeded.conversation.id, { limit: 100 })).data.slice(-3).map((item) => item.seq),
    );
  });

  it('lists the items of one turn in seq order', async () => {
    const seeded = await seedTurn(store());
    const next = await addTurn(store(), seeded.conversation);
    await store().items.append([userMessage(seeded.turn, 'x'), userMessage(next, 'y'), userMessage(seeded.turn, 'z')]);
    expect(texts(await store().items.listByTurn(seeded.turn.id))).toEqual(['x', 'z']);
    expect(texts(await store().items.listByTurn(next.id))).toEqual(['y']);
  });

  it('lists the items of one group, oldest first, and nothing for an unknown group', async () => {
    const seeded = await seedTurn(store());
    const first = { ...userMessage(seeded.turn, 'a'), groupId: 'msg_shared' + uid('g') };
    await store().items.append([
      first,
      userMessage(seeded.turn, 'other'),
      { ...userMessage(seeded.turn, 'b'), groupId: first.groupId },
    ]);
    expect(texts(await store().items.listByGroup(first.groupId))).toEqual(['a', 'b']);
    expect(await store().items.listByGroup(uid('msg'))).toEqual([]);
  });

  it('appends a long batch (several statements) in order, and all of it or none', async () => {
    const seeded = await seedTurn(store());
    const words = Array.from({ length: 250 }, (_, index) => `w${index}`);
    const appended = await store().items.append(words.map((word) => userMessage(seeded.turn, word)));
    expect(texts(appended)).toEqual(words);
    expect(appended.every((item, index) => index === 0 || item.seq > appended[index - 1]!.seq)).toBe(true);
    const listed = await store().items.list(seeded.turn.conversationId, { limit: 300, cursor: null });
    expect(texts(listed.data)).toEqual(words);

    // A duplicate in the last statement's rows undoes the statements before it.
    const again = Array.from({ length: 150 }, (_, index) => userMessage(seeded.turn, `again${index}`));
    again[149] = { ...again[149]!, id: appended[0]!.id };
    await expect(store().items.append(again)).rejects.toBeInstanceOf(DuplicateKeyError);
    const after = await store().items.list(seeded.turn.conversationId, { limit: 500, cursor: null });
    expect(after.data).toHaveLength(250);
  });

  it('is all-or-nothing: a duplicate id in a batch writes none of it', async () => {
    const seeded = await seedTurn(store());
    const existing = userMessage(seeded.turn, 'existing');
    await store().items.append([existing]);
    const batch = [userMessage(seeded.turn, 'new'), { ...userMessage(seeded.turn, 'dup'), id: existing.id }];
    await expect(store().items.append(batch)).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(texts(await store().items.listWindow(seeded.conversation.id, 10))).toEqual(['existing']);
  });
});
