import { randomIdempotencyKey } from '../http/idempotency-key.ts';
import { CLAIM_TIMEOUT_MARGIN_MS, type ToolCalls } from '../resources/tool-calls.ts';
import type { LedgerEntry } from '../wire/ledger.ts';
import { runClaimedCall } from './claimed-call.ts';
import { pause, untilAny } from './fleet-waits.ts';
import { fleetBackoffMs, isTransient } from './worker-failures.ts';
import { workerSettings, type WorkerRunOptions, type WorkerRunSummary, type WorkerSettings } from './worker-options.ts';

/** The most calls one claim may take (the API's `max_calls` limit). */
const MAX_CALLS_PER_CLAIM = 100;

/**
 * An empty answer sooner than this (no long-poll: `waitSeconds` 0, or a server that answers at
 * once) is followed by a pause, so an idle fleet never spins on claims.
 */
const MIN_IDLE_CLAIM_MS = 1_000;

/**
 * A worker fleet: claims calls of the handlers' tools, only as many as it has free slots, runs
 * them at once under heartbeated leases, and submits their results with the lease token. Failed
 * claims are retried with back-off for as long as the fleet runs; only a refusal that retrying
 * cannot fix (a bad key, an unknown tool) ends it, after the running handlers have finished.
 *
 * Stopping (`signal`) lets a long-poll in flight come back rather than cutting it off: a claim
 * whose answer was lost would hold its calls until their leases lapse, and cost each an attempt.
 * What it brings is released at once. So a stop takes up to `waitSeconds`, plus the running handlers.
 */
export async function runWorkerFleet(toolCalls: ToolCalls, options: WorkerRunOptions): Promise<WorkerRunSummary> {
  const settings = workerSettings(options);
  const { signal: stop, onError } = settings;
  const summary: WorkerRunSummary = { submitted: 0, lost: 0, released: 0, abandoned: 0, failed: 0 };
  const running = new Set<Promise<void>>();
  const giveUp = new AbortController();
  let disarm = (): void => {};
  const armGiveUp = (): void => {
    if (!Number.isFinite(settings.shutdownTimeoutMs)) return;
    const timer = setTimeout(
      () =>
        giveUp.abort(
          new DOMException(
            `The worker fleet stopped and gave up on this handler after shutdownTimeoutMs (${settings.shutdownTimeoutMs} ms).`,
            'AbortError',
          ),
        ),
      settings.shutdownTimeoutMs,
    );
    // Disarmed once every handler is done, so a fleet that stopped in time leaves no timer behind.
    disarm = () => clearTimeout(timer);
  };
  stop.addEventListener('abort', armGiveUp, { once: true });

  const start = (call: LedgerEntry): void => {
    const handler = settings.handlers.get(call.name);
    if (!handler) {
      // The claim names only the handlers' tools; a call of another tool is given back untouched.
      const giving: Promise<void> = release([call], toolCalls, settings, summary).then(() => {
        running.delete(giving);
      });
      running.add(giving);
      return;
    }
    const job: Promise<void> = runClaimedCall(call, {
      toolCalls,
      handler,
      leaseSeconds: settings.leaseSeconds,
      giveUp: giveUp.signal,
      onError,
    }).then((outcome) => {
      summary[outcome] += 1;
      running.delete(job);
    });
    running.add(job);
  };

  let fatal: { error: unknown } | null = null;
  // A claim that failed in a way that may have been applied (its answer lost): the next claim
  // repeats it under the same key and size, so the server replays the calls it took instead of
  // leaving them leased to nobody until their leases lapse (each lapse costing an attempt).
  let unsettled: ClaimRequest | null = null;
  try {
    for (let failures = 0; !stop.aborted;) {
      const free = settings.concurrency - running.size;
      if (free <= 0) {
        await untilAny(running, stop);
        continue;
      }
      const request: ClaimRequest = unsettled ?? {
        maxCalls: Math.min(free, MAX_CALLS_PER_CLAIM),
        idempotencyKey: randomIdempotencyKey(),
      };
      const sentAt = Date.now();
      let calls: LedgerEntry[];
      try {
        calls = await claim(toolCalls, settings, request);
        unsettled = null;
        failures = 0;
      } catch (error) {
        if (!isTransient(error)) {
          fatal = { error };
          break;
        }
        unsettled = request;
        onError(error, { stage: 'claim', call: null });
        await pause(fleetBackoffMs(failures++), stop);
        continue;
      }
      if (stop.aborted) {
        await release(calls, toolCalls, settings, summary);
        break;
      }
      for (const call of calls) start(call);
      if (calls.length === 0) await pause(MIN_IDLE_CLAIM_MS - (Date.now() - sentAt), stop);
    }
    // Stopped (or a fatal refusal): running handlers finish and submit, their heartbeats going on.
    await Promise.all(running);
  } finally {
    stop.removeEventListener('abort', armGiveUp);
    disarm();
  }
  if (fatal) throw fatal.error;
  return summary;
}

/** One claim as sent: repeated as is after a failure, so its idempotency key replays it. */
interface ClaimRequest {
  maxCalls: number;
  idempotencyKey: string;
}

function claim(toolCalls: ToolCalls, settings: WorkerSettings, request: ClaimRequest): Promise<LedgerEntry[]> {
  return toolCalls.claim(
    {
      tools: settings.tools,
      maxCalls: request.maxCalls,
      leaseSeconds: settings.leaseSeconds,
      waitSeconds: settings.waitSeconds,
      ...(settings.agents !== undefined ? { agents: settings.agents } : {}),
      ...(settings.worker !== undefined ? { worker: settings.worker } : {}),
    },
    // A long-poll must not be cut off by the client's general timeout (nor wait on a dead connection for 10 minutes).
    { timeoutMs: settings.waitSeconds * 1000 + CLAIM_TIMEOUT_MARGIN_MS, idempotencyKey: request.idempotencyKey },
  );
}

/** Gives unstarted claims back, so they are pending again at once and the claim costs no attempt. */
async function release(
  calls: readonly LedgerEntry[],
  toolCalls: ToolCalls,
  settings: WorkerSettings,
  summary: WorkerRunSummary,
): Promise<void> {
  await Promise.all(
    calls.map(async (call) => {
      const token = call.lease?.token;
      if (token === undefined) return;
      try {
        await toolCalls.release(call.id, token);
        summary.released += 1;
      } catch (error) {
        // Not given back: the lease lapses in its time and the call is claimed again then.
        settings.onError(error, { stage: 'release', call });
      }
    }),
  );
}
