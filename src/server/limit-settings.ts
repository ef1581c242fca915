/**
 * The per-app and overall limits of one Baton process (`limits:` in baton.yaml). Each app is
 * capped so that one tenant cannot take what the others need; the totals protect the process
 * itself. Counts are per process: N processes on one database allow N times as much.
 */
export interface LimitSettings {
  /** Authenticated requests of one app per minute (fixed one-minute windows). */
  requestsPerMinutePerApp: number;
  /** Authenticated requests of all apps per minute. */
  requestsPerMinuteTotal: number;
  /** Long-lived streams (SSE, ledger events, Responses WebSockets) one app may hold open. */
  streamsPerApp: number;
  streamsTotal: number;
  /** Turns of one app whose loop runs at once (background ones included). */
  turnsPerApp: number;
  turnsTotal: number;
  /** Requests with a missing or invalid key from one client address per minute before they get 429. */
  failedAuthPerMinutePerAddress: number;
}

/**
 * Per-app caps are a quarter of the totals, so at least four busy apps share the process. The
 * request rates sit below what one process serves (about 600 requests a second on two cores).
 */
export const DEFAULT_LIMITS: LimitSettings = {
  requestsPerMinutePerApp: 6_000,
  requestsPerMinuteTotal: 24_000,
  streamsPerApp: 250,
  streamsTotal: 1_000,
  turnsPerApp: 100,
  turnsTotal: 400,
  failedAuthPerMinutePerAddress: 20,
};
