import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from the CSPRNG a pool at a time: a round trip mints a score of ids, and one
 * `randomBytes` call each cost more CPU than all of Baton's id handling besides (a tenth of a
 * round trip in the floor phase's profiles). The bytes are as random; they are just fetched in bulk.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

function takeBytes(length: number): Buffer {
  if (length > POOL_BYTES) return randomFillSync(Buffer.alloc(length));
  if (offset + length > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + length);
  offset += length;
  return bytes;
}

/** A prefixed random id (`thread_…`, `call_…`) with ~143 bits of entropy, URL-safe. */
export function newId(prefix: string, length = 24): string {
  const bytes = takeBytes(length);
  let body = '';
  for (let index = 0; index < length; index++) body += ALPHABET[bytes[index]! % ALPHABET.length];
  return `${prefix}_${body}`;
}

export type IdGenerator = (prefix: string) => string;

/**
 * A conversation id (`newId('thread')`: `thread_` and 24 characters of the alphabet) where it is
 * not the middle of a longer word (`mythread_…`, or 24 characters cut out of a longer run).
 */
const CONVERSATION_ID = /(?<![0-9A-Za-z])thread_[0-9A-Za-z]{24}(?![0-9A-Za-z])/g;

/**
 * How many distinct conversation ids {@link findConversationIds} returns. A stored response names
 * one conversation, a fork two; twenty leaves room for any response Baton writes to a POST. One
 * naming more (a client's text quoting many ids) keeps the first twenty: its key is then not
 * removed with the conversations past them, and goes when it expires instead.
 */
export const MAX_CONVERSATION_IDS_FOUND = 20;

/** The conversation ids a text (a stored response body) names, in order of first mention, without repeats. */
export function findConversationIds(text: string, max = MAX_CONVERSATION_IDS_FOUND): string[] {
  const found = new Set<string>();
  // `thread_` is rare in a body: one indexOf answers the usual "none" without running the pattern.
  if (max <= 0 || !text.includes('thread_')) return [];
  for (const match of text.matchAll(CONVERSATION_ID)) {
    found.add(match[0]);
    if (found.size >= max) break;
  }
  return [...found];
}
