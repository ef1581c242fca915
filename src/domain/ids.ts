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
