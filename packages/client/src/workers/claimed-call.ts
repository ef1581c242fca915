import { abortError, BatonLeaseLostError } from '../errors.ts';
import { randomIdempotencyKey } from '../http/idempotency-key.ts';
import { whenAborted } from '../http/signals.ts';
import type { ToolCalls } from '../resources/tool-calls.ts';
import type { LedgerEntry } from '../wire/ledger.ts';
import { pause } from './fleet-waits.ts';
import { handlerResult } from './handler-result.ts';
import { LeaseHeartbeat } from './lease-heartbeat.ts';
import { fleetBackoffMs, isLeaseGone, isTransient, messageOf } from './worker-failures.ts';
import type { WorkerErrorContext, WorkerHandler } from './worker-options.ts';

/** What became of one claimed call (the summary counts these). */
export type CallOutcome = 'submitted' | 'lost' | 'abandoned' | 'failed';

export interface ClaimedCallSettings {
  toolCalls: ToolCalls;
  handler: WorkerHandler;
  leaseSeconds: number;
  /** Aborts when a stop gives up waiting for running handlers. */
  giveUp: AbortSignal;
  onError: (error: unknown, context: WorkerErrorContext) => void;
}

/**
 * One claimed call from start to end: heartbeat the lease, run the handler, submit its result
 * under the lease token. Never rejects: every way it can end is an outcome, and what went wrong
 * is reported to `onError`, so one call cannot bring the fleet down.
 */
export async function runClaimedCall(call: LedgerEntry, settings: ClaimedCallSettings): Promise<CallOutcome> {
  const { onError, giveUp } = settings;
  const token = call.lease?.token;
  if (token === undefined) {
    onError(new Error(`The claim of ${call.id} came without a lease token; the call was not run.`), {
      stage: 'claim',
      call,
    });
    return 'failed';
  }
  const heartbeat = new LeaseHeartbeat({ ...settings, call, token });
  const stopWaiting = whenAborted(giveUp);
  try {
    heartbeat.start();
    const context = { call, lease: heartbeat.lease, attempt: call.attempts ?? 1, signal: heartbeat.signal };
    // The handler is awaited even after its lease is lost, so the fleet never runs more handlers than
    // it has slots; only a stop that gives up stops waiting for it.
    const result = await Promise.race([handlerResult(settings.handler, context), stopWaiting.promise]);
    if (heartbeat.lost) return 'lost';
    heartbeat.beginSubmit();
    return await submit(call, { ...result, lease_token: heartbeat.currentToken() }, heartbeat, settings);
  } catch (error) {
    if (giveUp.aborted) {
      heartbeat.abandon(giveUp.reason);
      return 'abandoned';
    }
    onError(error, { stage: 'submit', call });
    return 'failed';
  } finally {
    stopWaiting.dispose();
    heartbeat.stop();
  }
}

/**
 * Sends the result, retrying what may pass (the network, 5xx) under one idempotency key, so an
 * answer lost on the way back is replayed rather than applied twice. Retries go on while the
 * lease lives (the heartbeat keeps renewing it); past that the server would refuse the result.
 */
async function submit(
  call: LedgerEntry,
  body: { lease_token: string; content?: string | Record<string, unknown>[]; is_error?: boolean },
  heartbeat: LeaseHeartbeat,
  settings: ClaimedCallSettings,
): Promise<CallOutcome> {
  const { toolCalls, onError, giveUp } = settings;
  const idempotencyKey = randomIdempotencyKey();
  for (let failures = 0; ; failures++) {
    try {
      await toolCalls.submitResult(call.id, body, { idempotencyKey, signal: giveUp });
      return 'submitted';
    } catch (error) {
      if (giveUp.aborted) throw error;
      if (isLeaseGone(error)) {
        onError(
          new BatonLeaseLostError(
            call.id,
            'lease_lost',
            `The result of ${call.id} (${call.name}) was refused: ${messageOf(error)}`,
            { cause: error },
          ),
          { stage: 'submit', call },
        );
        return 'lost';
      }
      if (!isTransient(error)) {
        onError(error, { stage: 'submit', call });
        return 'failed';
      }
      if (heartbeat.lost || heartbeat.remainingMs() <= 0) {
        onError(heartbeat.lost ?? error, { stage: 'submit', call });
        return 'lost';
      }
      onError(error, { stage: 'submit', call });
      await pause(Math.min(fleetBackoffMs(failures), Math.max(0, heartbeat.remainingMs())), giveUp);
      if (giveUp.aborted) throw abortError(giveUp);
    }
  }
}
