import type { BatonError } from '../errors.ts';

/**
 * When a request is tried again, and after how long. Every POST carries an Idempotency-Key, so
 * retrying a POST whose first attempt may have been applied is safe: the server replays it.
 */

export interface RetrySettings {
  maxRetries: number;
  /** First back-off; doubles per attempt, capped at `maxDelayMs`, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetrySettings = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8_000 };

const RETRYABLE_STATUS = new Set([408, 429, 502, 503, 504]);

/**
 * Whether an error answer is worth another attempt. A 502 that is Baton's own JSON error means
 * the model failed after the server's own retries (and the input was stored): repeating the same
 * request cannot help. A replayed answer is the stored outcome itself, so it is final too.
 */
export function isRetryableStatus(error: BatonError, replayed: boolean): boolean {
  if (replayed || !RETRYABLE_STATUS.has(error.status)) return false;
  return !(error.status === 502 && error.code !== null);
}

/**
 * A 409 saying the first attempt with this key is still running on the server. Waiting for it
 * costs nothing and is the only way to learn its outcome, so it does not use up a retry.
 */
export function isKeyInUse(error: BatonError): boolean {
  return error.status === 409 && (error.code === 'idempotency_key_in_use' || error.code === 'request_in_progress');
}

/**
 * A network fault: `fetch` rejects with a TypeError ("fetch failed", "Failed to fetch"), and a
 * body cut short rejects its read with "terminated" or a socket error. None of them says whether
 * the server applied the request, which is why POSTs carry idempotency keys.
 */
export function isNetworkFault(error: unknown): boolean {
  if (!(error instanceof Error) || error.name === 'AbortError' || error.name === 'TimeoutError') return false;
  if (error instanceof TypeError) return true;
  const code = (error as { code?: unknown }).code;
  return (
    typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)
  );
}

/** Exponential back-off with "equal jitter": half fixed, half random, so retries of many clients spread out. */
export function backoffMs(attempt: number, settings: RetrySettings, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, settings.maxDelayMs * 4);
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** `retry-after-ms`, else `retry-after` in seconds (dates are ignored). */
export function retryAfterOf(headers: Headers): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const seconds = Number(headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}
