import { BatonError } from '../domain/errors/baton-error.ts';
import { PerAppCounter, type CountedSlot } from '../domain/per-app-counter.ts';

/** A running turn's place among the turns of this process. Releasing twice is harmless. */
export type TurnSlot = CountedSlot;

/** Turns may take seconds; a short Retry-After brings the client back about when one has ended. */
const TURN_RETRY_AFTER_SECONDS = 2;

/**
 * Counts the turns whose loop runs in this process, per app and in all, so one app cannot take
 * every model call the process can make.
 *
 * New work asks `admit` before anything is written, and is refused with `too_many_turns` at the
 * cap: the client retries and nothing is left behind. Work already accepted (a paused turn whose
 * last call was answered, an approval decided, an expiry, queued input) takes its slot with
 * `take`, counted but never refused, since refusing it would strand a turn nobody waits on.
 */
export class TurnSlots {
  private readonly counter = new PerAppCounter();

  constructor(private readonly limits: { perApp: number; total: number }) {}

  /** Turns running now, of one app or of all. */
  running(appId?: string): number {
    return this.counter.held(appId);
  }

  /** A slot for a new turn of `appId`, or `too_many_turns` (429) when the app or the process is full. */
  admit(appId: string): TurnSlot {
    const mine = this.running(appId);
    if (mine >= this.limits.perApp) {
      throw new BatonError(
        'too_many_turns',
        `This app has ${mine} turns running, its limit (limits.turns_per_app); nothing was written. ` +
          `Retry in ${TURN_RETRY_AFTER_SECONDS} seconds.`,
        { retryAfterSeconds: TURN_RETRY_AFTER_SECONDS, data: { app_id: appId, running: mine } },
      );
    }
    const total = this.running();
    if (total >= this.limits.total) {
      throw new BatonError(
        'too_many_turns',
        `This server has ${total} turns running, its limit (limits.turns_total); nothing was written. ` +
          `Retry in ${TURN_RETRY_AFTER_SECONDS} seconds.`,
        { retryAfterSeconds: TURN_RETRY_AFTER_SECONDS, data: { app_id: appId, running: total } },
      );
    }
    return this.take(appId);
  }

  /** A slot for accepted work: counted toward the caps, never refused. */
  take(appId: string): TurnSlot {
    return this.counter.take(appId);
  }
}
