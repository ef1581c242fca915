import type { Clock } from '../domain/clock.ts';
import type { Store } from '../store/store.ts';

/** `server.idempotency_key_ttl_hours` when the config does not say: a day, as Stripe keeps its keys. */
export const DEFAULT_IDEMPOTENCY_KEY_TTL_HOURS = 24;

/** Keys deleted per statement (and transaction): a few milliseconds of the event loop each. */
export const IDEMPOTENCY_EXPIRY_BATCH = 500;
/** How often the sweeper's leader deletes expired keys: they only have to go eventually, not on the dot. */
export const IDEMPOTENCY_EXPIRY_INTERVAL_MS = 60_000;

const HOUR_MS = 3_600_000;

export interface IdempotencyExpirySettings {
  /** How long a key lasts from its first request (`server.idempotency_key_ttl_hours`). */
  ttlHours: number;
  /** Tests make batches small to see several. */
  batch?: number;
  intervalMs?: number;
}

/**
 * Deletes Idempotency-Keys older than their time to live, with their conversation links, so the
 * table does not grow forever (the client SDK sends a key on every POST). The contract: within the
 * TTL a retry replays the stored response; after it, the key is gone and the same request runs
 * again as a new one. A key whose request is still running (its lease is live) is kept, however old.
 *
 * The sweeper's leader runs it (`startWhenDue`, at most every `intervalMs`), in the background so
 * the deadline sweep never waits, in batches that yield the event loop to requests between them.
 */
export class IdempotencyExpiry {
  private readonly ttlMs: number;
  private readonly batch: number;
  private readonly intervalMs: number;
  private nextRunAt = 0;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    settings: IdempotencyExpirySettings,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.ttlMs = settings.ttlHours * HOUR_MS;
    this.batch = settings.batch ?? IDEMPOTENCY_EXPIRY_BATCH;
    this.intervalMs = settings.intervalMs ?? IDEMPOTENCY_EXPIRY_INTERVAL_MS;
  }

  /**
   * The sweeper's chore: starts a run in the background when the last one started `intervalMs`
   * ago or more and none is running. Returns at once; a failed run is reported to `onError` and
   * tried again at the next interval.
   */
  startWhenDue(): void {
    const now = this.clock.now().getTime();
    if (this.stopped || this.running || now < this.nextRunAt) return;
    this.nextRunAt = now + this.intervalMs;
    this.running = this.run()
      .then(
        () => undefined,
        (error: unknown) => this.onError(error),
      )
      .finally(() => {
        this.running = null;
      });
  }

  /** Deletes every key expired now, a batch at a time, until a batch comes back short; returns how many went. */
  async run(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - this.ttlMs).toISOString();
    let total = 0;
    for (;;) {
      const deleted = await this.store.idempotency.deleteExpired(before, this.batch, this.clock.now().toISOString());
      total += deleted;
      if (deleted < this.batch || this.stopped) return total;
      // Requests waiting on the event loop (and the database) go before the next batch.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Resolves when no run is going on (tests wait for a background run). */
  async idle(): Promise<void> {
    await this.running;
  }

  /** No run starts any more, and the one running stops after its batch (before the store closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
