import { createHash } from 'node:crypto';

/**
 * A strong RFC 7232 etag from the values that identify a resource version (e.g. name and
 * update time). Each part is tagged with its type and length, so ['a', 'b'] and ['a\u0000b'],
 * or 1 and '1', never hash alike.
 */
export function computeEtag(parts: readonly (string | number)[]): string {
  const encoded = parts
    .map((part) => (typeof part === 'number' ? `n:${part}` : `s${part.length}:${part}`))
    .join('\u0000');
  return `"${createHash('sha256').update(encoded).digest('base64url').slice(0, 22)}"`;
}

// Clients copy etags from JSON bodies, headers or docs, so compare the bare opaque value.
function opaque(etag: string): string {
  const trimmed = etag.trim().replace(/^W\//, '');
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
}

/**
 * Whether a client's etag allows a write to the current version. No etag (undefined or '') and
 * `*` match anything: the write then simply wins over whatever is stored.
 */
export function etagMatches(given: string | undefined, current: string): boolean {
  if (given === undefined || given.trim() === '' || given.trim() === '*') return true;
  return opaque(given) === opaque(current);
}
