import { BatonError } from '../../domain/errors/baton-error.ts';

/** How many long-lived streams may be open at once in this process, per app and in all. */
export interface StreamLimits {
  perApp: number;
  total: number;
}

/** A held place among the open streams. Releasing twice is harmless, so every close path may call it. */
export interface StreamSlot {
  release(): void;
}

/** What a stream slot is released on: a response or socket that says when it has closed. */
export interface Closable {
  readonly closed?: boolean;
  readonly destroyed?: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * A stream's end is unknown in advance: Retry-After is a short guess, so clients come back soon
 * after another stream of theirs closed rather than poll at once.
 */
const STREAM_RETRY_AFTER_SECONDS = 5;

/**
 * Counts the open long-lived streams of every app: ledger event streams, SSE replies (Threads runs,
 * Responses `stream: true`, CES `streamRunSession`) and Responses WebSocket connections. An app at
 * its own cap is refused while other apps still get slots; the total cap protects the process
 * (sockets, subscriptions) whoever holds the slots.
 */
export class StreamSlots {
  private readonly byApp = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: StreamLimits) {}

  /** Streams open now, of one app or of all. */
  open(appId?: string): number {
    return appId === undefined ? this.total : (this.byApp.get(appId) ?? 0);
  }

  /** A slot for a new stream of `appId`, or `too_many_streams` (429) when the app or the server is full. */
  acquire(appId: string): StreamSlot {
    const mine = this.open(appId);
    if (mine >= this.limits.perApp) {
      throw new BatonError(
        'too_many_streams',
        `This app has ${mine} streams open, its limit (limits.streams_per_app); close one, or retry in ` +
          `${STREAM_RETRY_AFTER_SECONDS} seconds.`,
        { retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS },
      );
    }
    if (this.total >= this.limits.total) {
      throw new BatonError(
        'too_many_streams',
        `This server has ${this.total} streams open, its limit (limits.streams_total); retry in ` +
          `${STREAM_RETRY_AFTER_SECONDS} seconds.`,
        { retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS },
      );
    }
    this.byApp.set(appId, mine + 1);
    this.total++;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.total--;
        const left = (this.byApp.get(appId) ?? 1) - 1;
        if (left > 0) this.byApp.set(appId, left);
        else this.byApp.delete(appId);
      },
    };
  }

  /**
   * A slot held until `target` (the HTTP response, or the upgraded socket) closes, whether it
   * ended normally, the client went away or the server cut it. A target already closed frees
   * the slot at once: its 'close' event has passed.
   */
  acquireUntilClosed(appId: string, target: Closable): StreamSlot {
    const slot = this.acquire(appId);
    if (target.closed === true || target.destroyed === true) slot.release();
    else target.once('close', () => slot.release());
    return slot;
  }
}
