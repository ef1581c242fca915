import { BatonLeaseLostError, BatonTimeoutError } from '../errors.ts';
import { linkSignal } from '../http/signals.ts';
import type { ToolCalls } from '../resources/tool-calls.ts';
import type { LedgerEntry } from '../wire/ledger.ts';
import { fleetBackoffMs, isLeaseGone, messageOf } from './worker-failures.ts';
import type { WorkerErrorContext, WorkerLease } from './worker-options.ts';

export interface HeartbeatSettings {
  toolCalls: ToolCalls;
  call: LedgerEntry;
  token: string;
  leaseSeconds: number;
  onError: (error: unknown, context: WorkerErrorContext) => void;
}

/** Retrying a failed renewal sooner than this would only add load to a struggling server. */
const MIN_RETRY_MS = 100;

/**
 * Keeps one call's lease alive while its handler runs: renews every third of the lease, retries
 * failed renewals with back-off while the lease still has time, and declares the lease lost when
 * the server says so (409 `lease_lost`) or when it ran out before a renewal got through. Losing
 * it aborts the handler's signal: another worker may be running the call by now.
 *
 * The lease's end is tracked on this machine's clock (the time an answer arrived plus the lease
 * length), never from the server's `expires_at`, so clock skew cannot make it look longer.
 */
export class LeaseHeartbeat {
  /** What the handler sees; aborts when the lease is lost or a stop gives up on the handler. */
  readonly signal: AbortSignal;
  readonly lease: WorkerLease;
  /** Set once the lease is known to be lost. */
  lost: BatonLeaseLostError | null = null;
  private readonly handlerSignal = new AbortController();
  /** Aborts renewals in flight when the heartbeat stops. */
  private readonly stopped = new AbortController();
  /** Shared with `lease`, whose getters read it: the handler always sees the latest. */
  private readonly current: { token: string; expiresAt: Date };
  private deadline: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private submitting = false;

  constructor(private readonly settings: HeartbeatSettings) {
    this.signal = this.handlerSignal.signal;
    this.deadline = Date.now() + this.leaseMs;
    const expires = settings.call.lease?.expires_at;
    const current = { token: settings.token, expiresAt: expires ? new Date(expires) : new Date(this.deadline) };
    this.current = current;
    this.lease = {
      get token() {
        return current.token;
      },
      get expiresAt() {
        return current.expiresAt;
      },
    };
  }

  private get leaseMs(): number {
    return this.settings.leaseSeconds * 1000;
  }

  /** The token to submit with (the latest a renewal handed out). */
  currentToken(): string {
    return this.current.token;
  }

  /** How long the lease has left by this machine's clock. */
  remainingMs(): number {
    return this.deadline - Date.now();
  }

  start(): void {
    this.schedule(this.leaseMs / 3);
  }

  /**
   * The handler is done and its result is being sent. Renewals go on (a submit may be retried),
   * but a lost lease is no longer news to report: the submit finds out and says so itself.
   */
  beginSubmit(): void {
    this.submitting = true;
  }

  /** A stop gave up on the handler: its signal aborts, and no renewal follows (the lease lapses). */
  abandon(reason: unknown): void {
    this.handlerSignal.abort(reason);
    this.stop();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopped.abort();
  }

  private schedule(ms: number): void {
    if (this.stopped.signal.aborted) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.beat(), ms);
  }

  private async beat(): Promise<void> {
    const { toolCalls, call, leaseSeconds, onError } = this.settings;
    const sentAt = Date.now();
    const remaining = this.deadline - sentAt;
    if (remaining <= 0) return this.lose('lapsed', null);
    // A renewal that answers after the lease ended is worthless: it must not wait longer than that.
    const link = linkSignal(this.stopped.signal);
    const timer = setTimeout(
      () => link.abort(new BatonTimeoutError(`Renewing the lease of ${call.id} took until the lease ran out.`)),
      remaining,
    );
    try {
      const entry = await toolCalls.renewLease(call.id, this.current.token, leaseSeconds, {
        signal: link.signal,
        timeoutMs: remaining,
      });
      if (this.stopped.signal.aborted) return;
      this.deadline = sentAt + this.leaseMs;
      if (entry.lease?.token) this.current.token = entry.lease.token;
      if (entry.lease?.expires_at) this.current.expiresAt = new Date(entry.lease.expires_at);
      this.failures = 0;
      this.schedule(this.leaseMs / 3);
    } catch (error) {
      if (this.stopped.signal.aborted) return;
      if (isLeaseGone(error)) return this.lose('lease_lost', error);
      if (Date.now() >= this.deadline) return this.lose('lapsed', error);
      onError(error, { stage: 'renew', call });
      // Try again while the lease has time, and at least once more before it ends.
      const left = this.deadline - Date.now();
      this.schedule(Math.max(MIN_RETRY_MS, Math.min(fleetBackoffMs(this.failures++), left / 2)));
    } finally {
      clearTimeout(timer);
      link.dispose();
    }
  }

  private lose(reason: 'lease_lost' | 'lapsed', cause: unknown): void {
    const { call, onError } = this.settings;
    const message =
      reason === 'lease_lost'
        ? `The lease on ${call.id} (${call.name}) was lost: ` +
          `${cause === null ? 'the server no longer holds it for this worker' : messageOf(cause)}. Its result will not be sent.`
        : `The lease on ${call.id} (${call.name}) ran out before a renewal got through. Its result will not be sent.`;
    this.lost = new BatonLeaseLostError(call.id, reason, message, cause === null ? undefined : { cause });
    this.stop();
    if (this.submitting) return;
    this.handlerSignal.abort(this.lost);
    onError(this.lost, { stage: 'renew', call });
  }
}
