import type { ItemRecord } from '../domain/records.ts';
import type { Store } from '../store/store.ts';
import { BatonError } from '../domain/errors/baton-error.ts';

const BATCH = 200;

function encodeCursor(seq: number): string {
  return Buffer.from(`seq:${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^seq:(\d{1,15})$/.exec(text);
  if (!match)
    throw new BatonError(
      'invalid_cursor',
      'Invalid cursor in `after`: pass the next_cursor value from a previous page.',
      { param: 'after' },
    );
  return Number(match[1]);
}

/**
 * A page of whole messages: items are read in batches and cut only between groups, so a message
 * never straddles two pages. The cursor is the position of the last item returned.
 */
export async function listMessagePage(
  store: Store,
  conversationId: string,
  limit: number,
  after: string | null,
): Promise<{ items: ItemRecord[]; nextCursor: string | null }> {
  let afterSeq = after === null ? 0 : decodeCursor(after);
  const items: ItemRecord[] = [];
  const groups: string[] = [];
  for (;;) {
    const batch = await store.items.listAfterSeq(conversationId, afterSeq, BATCH);
    for (const item of batch) {
      if (groups[groups.length - 1] !== item.groupId) {
        if (groups.length === limit) return { items, nextCursor: encodeCursor(items[items.length - 1]!.seq) };
        groups.push(item.groupId);
      }
      items.push(item);
    }
    if (batch.length < BATCH) return { items, nextCursor: null };
    afterSeq = batch[batch.length - 1]!.seq;
  }
}
