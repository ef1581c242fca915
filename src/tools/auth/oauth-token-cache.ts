import { createHash } from 'node:crypto';
import { requestClientCredentialsToken, type ClientCredentialsRequest } from './oauth-token-request.ts';
import type { TokenSender } from './token-sender.ts';

export type { ClientCredentialsRequest } from './oauth-token-request.ts';
export type { TokenSender } from './token-sender.ts';

/**
 * Client-credentials access tokens, fetched once and reused by every tool call of every session
 * until shortly before they expire. One per process: tokens are per (token endpoint, client,
 * scopes, secret), not per session, so sessions share them.
 *
 * Lifetime: the server's `expires_in` minus a safety margin (30 s by default, so a token is not
 * sent in its last seconds and rejected in flight), but never less than half the lifetime (a
 * 40-second token is used for 20 s, not refetched on every call). Without `expires_in` a token is
 * kept for 5 minutes: RFC 6749 leaves the default to the server, and short enough that a token
 * that dies sooner costs at most a few failed calls — callers also invalidate after a 401. No
 * token is kept longer than 24 hours, whatever `expires_in` says (a server announcing
 * milliseconds as seconds would otherwise pin a dead token for weeks).
 */

export interface GetTokenOptions {
  readonly send: TokenSender;
  /** Cancels this caller's wait; the shared request is cancelled only when every waiter has left. */
  readonly signal?: AbortSignal;
}

export interface OAuthTokenCacheOptions {
  /** Milliseconds since the epoch; injectable so tests can move time. */
  readonly now?: () => number;
  readonly maxEntries?: number;
  readonly safetyMarginMs?: number;
  /** How long a token without `expires_in` is used. */
  readonly defaultLifetimeMs?: number;
  readonly maxLifetimeMs?: number;
}

export const DEFAULT_MAX_TOKEN_ENTRIES = 1000;
export const DEFAULT_SAFETY_MARGIN_MS = 30_000;
export const DEFAULT_TOKEN_LIFETIME_MS = 5 * 60_000;
export const MAX_TOKEN_LIFETIME_MS = 24 * 60 * 60_000;

interface Entry {
  readonly token: string;
  readonly expiresAt: number;
}

/** One token request shared by every caller that wants the same token meanwhile. */
interface Flight {
  readonly controller: AbortController;
  readonly promise: Promise<string>;
  waiters: number;
}

export class OAuthTokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly flights = new Map<string, Flight>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private readonly safetyMarginMs: number;
  private readonly defaultLifetimeMs: number;
  private readonly maxLifetimeMs: number;

  constructor(options: OAuthTokenCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_TOKEN_ENTRIES);
    this.safetyMarginMs = options.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS;
    this.defaultLifetimeMs = options.defaultLifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS;
    this.maxLifetimeMs = options.maxLifetimeMs ?? MAX_TOKEN_LIFETIME_MS;
  }

  /** Tokens currently cached (expired ones included until they are next looked up or evicted). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * A valid access token: the cached one, the one already being fetched, or a new one. Throws
   * AuthError ('token_request_failed' / 'token_response_invalid'); a failure is not cached, so
   * the next call asks the server again.
   */
  async getToken(request: ClientCredentialsRequest, options: GetTokenOptions): Promise<string> {
    options.signal?.throwIfAborted();
    const key = cacheKey(request);
    const cached = this.entries.get(key);
    if (cached) {
      if (cached.expiresAt > this.now()) return cached.token;
      this.entries.delete(key);
    }
    let flight = this.flights.get(key);
    // A flight whose waiters all gave up was cancelled: its answer will never come.
    if (!flight || flight.controller.signal.aborted) flight = this.startFlight(key, request, options.send);
    return wait(flight, options.signal);
  }

  /**
   * Drops the cached token so the next getToken fetches a new one; for a caller whose request
   * came back 401. With `token`, drops it only if it is still the cached one: another caller
   * may have refreshed it already, and that fresh token should survive. True if one was dropped.
   */
  invalidate(request: ClientCredentialsRequest, token?: string): boolean {
    const key = cacheKey(request);
    const cached = this.entries.get(key);
    if (!cached || (token !== undefined && cached.token !== token)) return false;
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private startFlight(key: string, request: ClientCredentialsRequest, send: TokenSender): Flight {
    const controller = new AbortController();
    // Lifetime counts from when the request left, not when the answer arrived: the server's
    // clock started no later than that.
    const sentAt = this.now();
    const promise = requestClientCredentialsToken(request, send, controller.signal)
      .then((issued) => {
        const lifetime = this.lifetimeMs(issued.expiresInSeconds);
        if (lifetime > 0) this.store(key, { token: issued.accessToken, expiresAt: sentAt + lifetime });
        return issued.accessToken;
      })
      .finally(() => {
        if (this.flights.get(key) === flight) this.flights.delete(key);
      });
    const flight: Flight = { controller, promise, waiters: 0 };
    this.flights.set(key, flight);
    return flight;
  }

  private lifetimeMs(expiresInSeconds: number | undefined): number {
    if (expiresInSeconds === undefined) return Math.min(this.defaultLifetimeMs, this.maxLifetimeMs);
    const lifetime = expiresInSeconds * 1000;
    return Math.min(Math.max(lifetime - this.safetyMarginMs, lifetime / 2), this.maxLifetimeMs);
  }

  private store(key: string, entry: Entry): void {
    // Re-inserting moves the key to the end, so Map order is oldest-stored first.
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, entry);
  }
}

/** Joins a flight; leaving (abort) cancels the request only if nobody else still waits for it. */
function wait(flight: Flight, signal: AbortSignal | undefined): Promise<string> {
  flight.waiters += 1;
  if (!signal) return flight.promise;
  return new Promise<string>((resolve, reject) => {
    const leave = (): void => {
      flight.waiters -= 1;
      if (flight.waiters === 0) flight.controller.abort(signal.reason);
      reject(signal.reason);
    };
    signal.addEventListener('abort', leave, { once: true });
    flight.promise.then(
      (token) => {
        signal.removeEventListener('abort', leave);
        resolve(token);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', leave);
        reject(error);
      },
    );
  });
}

/**
 * The secret is part of the key so a rotated secret gets its own token at once, hashed so the
 * map holds no second copy of it. Scopes are sorted: their order does not change the grant.
 */
function cacheKey(request: ClientCredentialsRequest): string {
  const secret = createHash('sha256').update(request.clientSecret, 'utf8').digest('base64url');
  const scopes = [...(request.scopes ?? [])].sort();
  return JSON.stringify([request.tokenEndpoint, request.clientId, scopes, secret]);
}
