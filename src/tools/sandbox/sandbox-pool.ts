import { siblingModule } from '../workers/sibling-module.ts';
import { WorkerPool, type WorkerPoolStats } from '../workers/worker-pool.ts';
import { WorkerPoolError } from '../workers/worker-pool-error.ts';
import { prepareSandboxCall, type PreparedSandboxCall, type SandboxCall, type SandboxResult } from './js-sandbox.ts';
import { SandboxError } from './sandbox-error.ts';
import type { SandboxRunner, SandboxRunOptions } from './sandbox-runner.ts';
import type { SandboxTask, SandboxTaskOutcome } from './sandbox-worker.ts';

/**
 * The server's sandbox: calls run in a pool of worker threads (sandbox-worker.ts), never on the
 * event loop, so a tool that loops forever costs one worker, not every request of every app.
 *
 * Deadlines. A call's `timeoutMs` counts from when a worker starts it: QuickJS's interrupt stops
 * the guest there with the usual `timeout` error. If the worker has not answered `KILL_GRACE_MS`
 * later (the guest is stuck in a built-in the interrupt never reaches), the worker is terminated
 * and replaced, and the caller gets the same `timeout` error. Waiting for a free worker is bounded
 * apart: by the caller's signal, and by the call's own timeout but at least `MIN_WAIT_MS` (a cold
 * worker takes about a second to start); a call that gets no worker fails with `busy`.
 *
 * Fairness: one app (the owner) may run on at most `size - 1` workers at once (at least 1), so
 * with two or more workers another app always finds one (workers/worker-pool.ts).
 */

/** Time past a call's deadline before its worker is terminated: the guest's own stop, plus reading its logs. */
export const KILL_GRACE_MS = 1_000;
/** The least a call may wait for a worker. */
export const MIN_WAIT_MS = 10_000;

export interface SandboxPoolOptions {
  /** Worker threads (`tools.sandbox_workers`). */
  readonly size: number;
  /** Calls one app may run at once; default `size - 1`, at least 1. */
  readonly maxRunningPerApp?: number;
}

export class SandboxPool implements SandboxRunner {
  private readonly pool: WorkerPool;

  constructor(options: SandboxPoolOptions) {
    this.pool = new WorkerPool({
      name: 'sandbox',
      module: siblingModule(import.meta.url, 'sandbox-worker'),
      size: options.size,
      ...(options.maxRunningPerApp === undefined ? {} : { maxRunningPerOwner: options.maxRunningPerApp }),
    });
  }

  async run(call: SandboxCall, options: SandboxRunOptions = {}): Promise<SandboxResult> {
    const prepared = prepareSandboxCall(call);
    const { timeoutMs } = prepared.limits;
    let outcome: SandboxTaskOutcome;
    try {
      outcome = await this.pool.run<SandboxTaskOutcome>({ call: prepared } satisfies SandboxTask, {
        owner: options.owner ?? '',
        runMs: timeoutMs + KILL_GRACE_MS,
        waitMs: Math.max(MIN_WAIT_MS, timeoutMs),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      throw this.translate(error, prepared, options.signal);
    }
    if (outcome.ok) return outcome.result;
    throw SandboxError.fromData(outcome.error);
  }

  stats(): WorkerPoolStats {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** A pool failure in the sandbox's words, naming the code's owner like every SandboxError. */
  private translate(error: unknown, call: PreparedSandboxCall, signal: AbortSignal | undefined): unknown {
    if (!(error instanceof WorkerPoolError)) return error;
    const { label } = call;
    switch (error.reason) {
      case 'deadline':
        return new SandboxError(
          'timeout',
          `${label}: the code did not finish within ${call.limits.timeoutMs} ms and was stopped (its sandbox worker was terminated)`,
        );
      case 'aborted':
        return signal?.reason ?? error;
      case 'busy':
      case 'wait_timeout':
        return new SandboxError(
          'busy',
          `${label}: the code did not run: ${error.message} (tools.sandbox_workers is ${this.pool.size})`,
        );
      case 'closed':
        return new SandboxError('busy', `${label}: the code did not run: ${error.message}`);
      case 'crashed':
      case 'task_failed':
        return new SandboxError('crashed', `${label}: the sandbox failed while running the code (${error.message})`);
    }
  }
}
