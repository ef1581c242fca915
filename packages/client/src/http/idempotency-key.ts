import { sha256Bytes } from './sha256.ts';

/**
 * `Idempotency-Key` values. Baton stores the outcome of a POST under its key and replays it for a
 * repeat with the same key and body, so a retry after a lost response never applies twice.
 */

/** A fresh key for one logical request; its retries reuse it. */
export function randomIdempotencyKey(): string {
  // randomUUID exists only in secure contexts; getRandomValues everywhere.
  if (typeof crypto.randomUUID === 'function') return `baton-${crypto.randomUUID()}`;
  return `baton-${hex(crypto.getRandomValues(new Uint8Array(16)))}`;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  // Web Crypto exists only in secure contexts (HTTPS, localhost); elsewhere the JS version does.
  if (typeof crypto.subtle?.digest !== 'function') return hex(sha256Bytes(bytes));
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

/**
 * A key derived from what is sent — `scope`, the sorted call ids and, when given, the payload —
 * not from the attempt: every retry of a submit, including one whose first attempt reached the
 * server and whose answer was lost, carries the same key, so the server replays the outcome
 * instead of applying it again. The payload is part of it so that another client answering the
 * same calls differently is refused by the ledger (`tool_call_already_resolved`, which the runner
 * handles), not by the key store (`idempotency_key_reused`).
 */
export async function derivedIdempotencyKey(scope: string, ids: readonly string[], payload = ''): Promise<string> {
  return `baton-${scope}-${await sha256Hex(`${[...ids].sort().join(',')}\n${payload}`)}`;
}
