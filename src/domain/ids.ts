import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A prefixed random id (`thread_…`, `call_…`) with ~143 bits of entropy, URL-safe. */
export function newId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let body = '';
  for (const byte of bytes) body += ALPHABET[byte % ALPHABET.length];
  return `${prefix}_${body}`;
}

export type IdGenerator = (prefix: string) => string;
