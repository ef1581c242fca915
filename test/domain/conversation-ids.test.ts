import { describe, expect, it } from 'vitest';
import { findConversationIds, MAX_CONVERSATION_IDS_FOUND, newId } from '../../src/domain/ids.ts';

describe('findConversationIds', () => {
  it('finds the conversation ids a response names, once each, in order of first mention', () => {
    const [a, b] = [newId('thread'), newId('thread')];
    const body = JSON.stringify({
      id: a,
      object: 'thread.message',
      thread_id: a,
      url: `/v1/threads/${b}/messages`,
      forked_from: b,
      turn: newId('turn'),
    });
    expect(findConversationIds(body)).toEqual([a, b]);
  });

  it('finds nothing in a response naming no conversation, and no id that is part of a longer word', () => {
    expect(findConversationIds('{"ok":true}')).toEqual([]);
    expect(findConversationIds('')).toEqual([]);
    const id = newId('thread');
    expect(findConversationIds(`my${id} ${id}X thread_short thread_${'a'.repeat(23)}-`)).toEqual([]);
    // Quotes, slashes, colons, spaces and underscores delimit an id.
    expect(findConversationIds(`"${id}"`)).toEqual([id]);
    expect(findConversationIds(`export_${id}_2`)).toEqual([id]);
    expect(findConversationIds(`sessions/${id}:run`)).toEqual([id]);
    expect(findConversationIds(`${id}`)).toEqual([id]);
  });

  it(`returns at most ${MAX_CONVERSATION_IDS_FOUND} distinct ids (the first ones)`, () => {
    const ids = Array.from({ length: 50 }, () => newId('thread'));
    const body = JSON.stringify({ repeated: [ids[0], ids[0], ids[1]], all: ids });
    expect(findConversationIds(body)).toEqual(ids.slice(0, MAX_CONVERSATION_IDS_FOUND));
    expect(findConversationIds(body, 3)).toEqual(ids.slice(0, 3));
    expect(findConversationIds(body, 0)).toEqual([]);
  });
});
