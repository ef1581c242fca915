import { BatonError } from '../../domain/errors/baton-error.ts';
import { PerAppCounter, type CountedSlot } from '../../domain/per-app-counter.ts';

/** How many long-lived streams may be open at once in this process, per app and in all. */
export interface StreamLimits {
  perApp: number;
  total: number;
}

/** A held place among the open streams. Releasing twice is harmless, so every close path may call it. */
export type StreamSlot = CountedSlot;

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
  private readonly counter = new PerAppCounter();
  /** The open streams' targets, so a draining server can tell each how to come back. */
  private readonly targets = new Set<Closable>();

  constructor(private readonly limits: StreamLimits) {}

  /** Streams open now, of one app or of all. */
  open(appId?: string): number {
    return this.counter.held(appId);
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
    const total = this.open();
    if (total >= this.limits.total) {
      throw new BatonError(
        'too_many_streams',
        `This server has ${total} streams open, its limit (limits.streams_total); retry in ` +
          `${STREAM_RETRY_AFTER_SECONDS} seconds.`,
        { retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS },
      );
    }
    return this.counter.take(appId);
  }

  /**
   * A slot held until `target` (the HTTP response, or the upgraded socket) closes, whether it
   * ended normally, the client went away or the server cut it. A target already closed frees
   * the slot at once: its 'close' event has passed.
   */
  acquireUntilClosed(appId: string, target: Closable): StreamSlot {
    const slot = this.acquire(appId);
    if (target.closed === true || target.destroyed === true) slot.release();
    else {
      this.targets.add(target);
      target.once('close', () => {
        this.targets.delete(target);
        slot.release();
      });
    }
    return slot;
  }

  /** Every stream open now (responses and upgraded sockets), for a server that drains. */
  openTargets(): Closable[] {
    return [...this.targets];
  }
}
