import { BatonConnectionError, BatonError, BatonTimeoutError } from '../errors.ts';
import { backoffMs, isKeyInUse, isNetworkFault, type RetrySettings } from '../http/retry-policy.ts';

/**
 * How a fleet reads a failed request. The transport has already retried network faults and
 * 5xx a couple of times; what still fails here is retried by the fleet itself, for as long as it
 * runs, with a longer back-off: a worker outlives outages, it does not crash on them.
 */

/** 0.5 s, doubling, up to 30 s, with jitter so a fleet coming back does not hit the server at once. */
export const FLEET_BACKOFF: RetrySettings = {
  maxRetries: Number.POSITIVE_INFINITY,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

export function fleetBackoffMs(failures: number): number {
  return backoffMs(failures, FLEET_BACKOFF, null);
}

/** A failure that may pass by itself: the network, a timeout, the server overloaded or failing. */
export function isTransient(error: unknown): boolean {
  if (error instanceof BatonConnectionError || error instanceof BatonTimeoutError) return true;
  if (error instanceof BatonError)
    return error.status >= 500 || error.status === 408 || error.status === 429 || isKeyInUse(error);
  return isNetworkFault(error);
}

/**
 * The token no longer holds the call: the lease lapsed or went to another worker (`lease_lost`),
 * or the call is gone or answered. Nothing this worker sends for the call counts any more.
 */
export function isLeaseGone(error: unknown): boolean {
  return (
    error instanceof BatonError &&
    (error.code === 'lease_lost' || error.code === 'tool_call_already_resolved' || error.code === 'tool_call_not_found')
  );
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
