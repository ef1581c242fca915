import { BatonError } from '../domain/errors/baton-error.ts';

export interface AuthFailureLimiterSettings {
  /** Failed attempts one address may make per window before further failures get 429. */
  maxFailures: number;
  windowMs: number;
  /** Addresses remembered at most; past it, the oldest windows are forgotten first. */
  maxAddresses?: number;
  now?: () => number;
}

interface FailureWindow {
  failures: number;
  resetsAt: number;
}

const DEFAULT_MAX_ADDRESSES = 10_000;

/**
 * Counts failed authentications (a missing or invalid key: any 401) per client address in fixed
 * windows. Past the limit a failed attempt is answered `too_many_failed_auth` (429) instead of
 * 401, so a client guessing or misconfigured is told to slow down. The key is always checked
 * first: a valid key from the same address is never refused, and nothing here blocks a request
 * before its key was read.
 */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, FailureWindow>();
  private readonly maxAddresses: number;
  private readonly now: () => number;

  constructor(private readonly settings: AuthFailureLimiterSettings) {
    this.maxAddresses = settings.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
    this.now = settings.now ?? Date.now;
  }

  /** Runs `authenticate`; its 401 is counted for `address`, and becomes a 429 past the limit. */
  async guard<T>(address: string | undefined, authenticate: () => Promise<T>): Promise<T> {
    try {
      return await authenticate();
    } catch (error) {
      if (!(error instanceof BatonError) || error.kind !== 'unauthorized') throw error;
      const retryAfterSeconds = this.recordFailure(address ?? 'unknown');
      if (retryAfterSeconds === null) throw error;
      throw new BatonError(
        'too_many_failed_auth',
        `Too many requests with a missing or invalid API key from this address (limit ` +
          `${this.settings.maxFailures} a minute, limits.failed_auth_per_minute_per_address). ${error.message} ` +
          `Retry in ${retryAfterSeconds} seconds; a valid key is accepted meanwhile.`,
        { retryAfterSeconds, cause: error },
      );
    }
  }

  /** Counts one failure; returns the seconds until the window resets once the address is over the limit, else null. */
  private recordFailure(address: string): number | null {
    const now = this.now();
    let window = this.windows.get(address);
    if (!window || window.resetsAt <= now) {
      this.windows.delete(address);
      this.makeRoom(now);
      window = { failures: 0, resetsAt: now + this.settings.windowMs };
      this.windows.set(address, window);
    }
    window.failures++;
    if (window.failures <= this.settings.maxFailures) return null;
    return Math.max(1, Math.ceil((window.resetsAt - now) / 1000));
  }

  /**
   * Keeps the map bounded when many addresses fail (a scan): expired windows go first, then the
   * oldest ones (a Map iterates in insertion order, and a window is re-inserted when it restarts).
   */
  private makeRoom(now: number): void {
    if (this.windows.size < this.maxAddresses) return;
    for (const [address, window] of this.windows) if (window.resetsAt <= now) this.windows.delete(address);
    for (const address of this.windows.keys()) {
      if (this.windows.size < this.maxAddresses) break;
      this.windows.delete(address);
    }
  }
}
