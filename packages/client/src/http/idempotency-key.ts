/**
 * `Idempotency-Key` values. Baton stores the outcome of a POST under its key and replays it for a
 * repeat with the same key and body, so a retry after a lost response never applies twice.
 */

/** A fresh key for one logical request; its retries reuse it. */
export function randomIdempotencyKey(): string {
  return `baton-${crypto.randomUUID()}`;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * A key derived from what is answered (`scope` plus the sorted call ids), not from the attempt:
 * every retry of a submit, including one whose first attempt reached the server and whose answer
 * was lost, carries the same key, so the server replays the outcome instead of applying it again.
 */
export async function derivedIdempotencyKey(scope: string, ids: readonly string[]): Promise<string> {
  return `baton-${scope}-${await sha256Hex([...ids].sort().join(','))}`;
}
