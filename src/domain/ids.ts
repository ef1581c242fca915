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

/** Characters of an id that tell when it was made: 62^8 ms last until the year 8888. */
const TIME_LENGTH = 8;
let stampedAt = -1;
let stamp = '';

/** `Date.now()` in base 62, fixed width, so that ids made later sort after (ASCII order). */
function timeStamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    let rest = now;
    let text = '';
    for (let index = 0; index < TIME_LENGTH; index++) {
      text = ALPHABET[rest % ALPHABET.length] + text;
      rest = Math.floor(rest / ALPHABET.length);
    }
    stampedAt = now;
    stamp = text;
  }
  return stamp;
}

/**
 * A prefixed id (`thread_…`, `call_…`), URL-safe: 8 characters of the time it was made, then
 * random ones (16 by default: ~95 bits, so ids never collide, across processes too, and cannot be
 * guessed). The time comes first so that ids made one after another sort together: each table is
 * indexed by its ids (and items by their groups), and a new row's entry then lands on the page the
 * previous one dirtied, instead of on a random page of the index. Random ids made SQLite append
 * twice the pages to its log per round trip that time-ordered ones do.
 */
export function newId(prefix: string, length = 24): string {
  const random = Math.max(length - TIME_LENGTH, 0);
  const bytes = takeBytes(random);
  let body = length > TIME_LENGTH ? timeStamp() : '';
  for (let index = 0; index < random; index++) body += ALPHABET[bytes[index]! % ALPHABET.length];
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
