import type { ToolCall, WorkerLease } from './api-types.ts';

/** Whether a fleet of tool workers, rather than the conversation's caller, is meant to run the call. */
export function isWorkerCall(call: ToolCall): boolean {
  return call.executor === 'worker';
}

/**
 * The lease that holds the call now, or null. A view read a while ago may still carry a lease
 * that has since run out, and a lapsed lease no longer holds the call (the server accepts a
 * person's answer again), so its expiry is compared with the clock rather than trusted. An
 * unreadable expiry counts as live: hiding the form errs on the side the server enforces.
 */
export function liveLease(call: ToolCall, now: number): WorkerLease | null {
  if (!isWorkerCall(call) || call.state !== 'pending' || !call.lease) return null;
  const expires = Date.parse(call.lease.expires_at);
  return Number.isNaN(expires) || expires > now ? call.lease : null;
}

/** A lease the view still carries although it ran out: the worker that held the call last. */
export function lapsedLease(call: ToolCall, now: number): WorkerLease | null {
  if (!isWorkerCall(call) || !call.lease) return null;
  return liveLease(call, now) === null ? call.lease : null;
}

/** "1 of 3": leases taken so far out of those the call allows; null when the server sent no counts. */
export function attemptsLabel(call: ToolCall): string | null {
  if (!isWorkerCall(call) || call.attempts === undefined || call.max_attempts === undefined) return null;
  return `${call.attempts} of ${call.max_attempts}`;
}
