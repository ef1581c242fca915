import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { HostMessage, TaskMessage } from './worker-messages.ts';
import { WorkerPoolError, type WorkerPoolFailure } from './worker-pool-error.ts';
import { isTypeScriptModule, siblingModule } from './sibling-module.ts';

/**
 * A bounded pool of worker threads for work that must not run on the server's event loop:
 * untrusted JavaScript (the sandbox) and untrusted OpenAPI documents. One task per worker at a
 * time; a task past its run budget is stopped from outside by terminating its worker, which is
 * replaced at once, so nothing a task does can hold the server or the pool.
 *
 * Budgets. A task's run budget (`runMs`) counts from the moment a worker takes it, so a task
 * never pays for a worker that was still starting (a cold worker loads its modules: about a
 * second through tsx when running sources, less from dist/) or for the tasks ahead of it. The
 * wait for a worker is bounded separately (`waitMs`, stretched by up to a minute while workers
 * are still starting) and by the caller's signal (the tool call's own deadline, a cancelled turn).
 *
 * Fairness. Each task names its owner (an app). One owner may have at most `maxRunningPerOwner`
 * tasks in workers at once, by default one fewer than the pool's size, so a tenant that floods
 * the pool with busy loops still leaves a worker for everyone else; its other tasks wait. At most
 * `maxWaitingPerOwner` tasks of one owner and `maxWaiting` in all may wait; beyond that a task is
 * refused at once ('busy') rather than queued without end.
 *
 * Workers start on first use (a server that never runs such a task starts none) and are unref'd:
 * they never keep the process alive. On Linux they run at a lower CPU priority than the event loop
 * (nice +10), so on a machine short of cores a spinning task yields to the requests of everyone else. `close()` fails what is waiting or running and terminates
 * them all.
 */

export interface WorkerPoolOptions {
  /** Names the pool in messages, e.g. `sandbox`. */
  readonly name: string;
  /**
   * The task module, whose default export runs one task (structured-clone in and out): a `.ts`
   * source (run through tsx) or its compiled `.js`; name it with `siblingModule`.
   */
  readonly module: URL;
  /** Worker threads, at least 1. */
  readonly size: number;
  /** Tasks one owner may have in workers at once; default `size - 1`, at least 1. */
  readonly maxRunningPerOwner?: number;
  /** Tasks that may wait for a worker, in all; default 256. */
  readonly maxWaiting?: number;
  /** Tasks one owner may have waiting; default 32. */
  readonly maxWaitingPerOwner?: number;
  /** Each worker's V8 heap limit in MiB; a worker past it dies and its task fails ('crashed'). */
  readonly maxHeapMb?: number;
  /** How much lower the workers' CPU priority is than the server's (nice increment, Linux); default 10. */
  readonly niceness?: number;
}

export interface PoolTaskOptions {
  /** Who the task is for (an app id): bounds one owner's share of the workers. */
  readonly owner: string;
  /** How long the task may run once a worker has taken it, ms; past it the worker is terminated. */
  readonly runMs: number;
  /** How long the task may wait for a free worker, ms. */
  readonly waitMs: number;
  /** The caller gave up: a waiting task is dropped, a running one's worker terminated. */
  readonly signal?: AbortSignal;
}

export interface WorkerPoolStats {
  /** Workers alive (starting or ready). */
  readonly workers: number;
  readonly ready: number;
  readonly running: number;
  readonly waiting: number;
  /** Workers terminated because their task ran past its budget or was cancelled. */
  readonly killed: number;
  /** Workers that died on their own (out of memory, a crash, a failed start). */
  readonly crashed: number;
  /** Workers started since the pool was made. */
  readonly started: number;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  job: Job | undefined;
  /** The worker's own uncaught error, reported before it exits. */
  lastError: Error | undefined;
}

interface Job {
  readonly id: number;
  readonly task: unknown;
  readonly options: PoolTaskOptions;
  readonly submittedAt: number;
  startedAt: number | undefined;
  slot: Slot | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  done: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: WorkerPoolError) => void;
  readonly onAbort: () => void;
}

const DEFAULT_MAX_WAITING = 256;
/** How long a task's wait may be stretched while workers are starting. */
const STARTUP_ALLOWANCE_MS = 60_000;
const DEFAULT_MAX_WAITING_PER_OWNER = 32;

/**
 * The worker's entry. Compiled (dist/), it is worker-host.js itself, an ES module Node runs as is.
 * As source (tsx, vitest), Node 20 cannot start a worker on a .ts file (its ESM loader hooks do not
 * reach workers), so the entry is a line of CommonJS that requires the host through tsx's CommonJS
 * hook, given in `execArgv`.
 */
const HOST = siblingModule(import.meta.url, 'worker-host');
const HOST_NEEDS_TSX = isTypeScriptModule(HOST);
const BOOTSTRAP = "require(require('node:worker_threads').workerData.host);";
let tsxHook: string | undefined;

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private readonly runningByOwner = new Map<string, number>();
  private readonly maxRunningPerOwner: number;
  private readonly maxWaiting: number;
  private readonly maxWaitingPerOwner: number;
  private nextId = 1;
  private closed = false;
  private readonly counters = { killed: 0, crashed: 0, started: 0 };

  constructor(private readonly options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) {
      throw new RangeError(`the ${options.name} pool needs at least one worker; got ${String(options.size)}`);
    }
    this.maxRunningPerOwner = Math.max(1, options.maxRunningPerOwner ?? options.size - 1);
    this.maxWaiting = options.maxWaiting ?? DEFAULT_MAX_WAITING;
    this.maxWaitingPerOwner = options.maxWaitingPerOwner ?? DEFAULT_MAX_WAITING_PER_OWNER;
  }

  get size(): number {
    return this.options.size;
  }

  /** Runs `task` in a worker; rejects with a WorkerPoolError saying why it has no result. */
  run<R>(task: unknown, options: PoolTaskOptions): Promise<R> {
    if (this.closed) return Promise.reject(this.failure('closed', options));
    if (options.signal?.aborted) return Promise.reject(this.failure('aborted', options));
    return new Promise<R>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        task,
        options,
        submittedAt: Date.now(),
        startedAt: undefined,
        slot: undefined,
        timer: undefined,
        done: false,
        resolve: resolve as (value: unknown) => void,
        reject,
        onAbort: () => this.abort(job),
      };
      options.signal?.addEventListener('abort', job.onAbort, { once: true });
      this.waiting.push(job);
      this.ensureWorkers();
      this.pump();
      if (job.slot || job.done) return;
      const owner = options.owner;
      const ownerWaiting = this.waiting.filter((other) => other.options.owner === owner).length;
      if (this.waiting.length > this.maxWaiting || ownerWaiting > this.maxWaitingPerOwner) {
        this.finish(job, this.failure('busy', options));
        return;
      }
      this.armWait(job, options.waitMs);
    });
  }

  stats(): WorkerPoolStats {
    return {
      workers: this.slots.length,
      ready: this.slots.filter((slot) => slot.ready).length,
      running: this.slots.filter((slot) => slot.job).length,
      waiting: this.waiting.length,
      ...this.counters,
    };
  }

  /** Fails what is waiting or running and terminates every worker. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.waiting]) this.finish(job, this.failure('closed', job.options));
    const slots = this.slots.splice(0);
    for (const slot of slots) if (slot.job) this.finish(slot.job, this.failure('closed', slot.job.options));
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  /**
   * Bounds a task's wait. Time spent while a worker is still starting does not count (a cold
   * worker loads its modules: about a second through tsx, far more on a loaded machine), up to
   * `STARTUP_ALLOWANCE_MS`; a worker that fails to start fails the waiting tasks itself (onExit).
   */
  private armWait(job: Job, delayMs: number): void {
    job.timer = setTimeout(() => {
      const starting = this.slots.some((slot) => !slot.ready);
      if (starting && waited(job) < job.options.waitMs + STARTUP_ALLOWANCE_MS) {
        this.armWait(job, Math.min(1_000, job.options.waitMs));
        return;
      }
      this.finish(job, this.failure('wait_timeout', job.options, job));
    }, delayMs);
  }

  private ensureWorkers(): void {
    while (!this.closed && this.slots.length < this.options.size) this.spawn();
  }

  private spawn(): void {
    const options = {
      workerData: {
        host: fileURLToPath(HOST),
        module: fileURLToPath(this.options.module),
        niceness: this.options.niceness ?? 10,
      },
      ...(this.options.maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } } : {}),
    };
    // execArgv is explicit, so the parent's flags (--import tsx, --inspect, --expose-gc) are not inherited.
    let worker: Worker;
    if (HOST_NEEDS_TSX) {
      tsxHook ??= createRequire(import.meta.url).resolve('tsx/cjs');
      worker = new Worker(BOOTSTRAP, { eval: true, execArgv: ['--require', tsxHook], ...options });
    } else {
      worker = new Worker(HOST, { execArgv: [], ...options });
    }
    worker.unref();
    const slot: Slot = { worker, ready: false, job: undefined, lastError: undefined };
    this.slots.push(slot);
    this.counters.started += 1;
    worker.on('message', (message: HostMessage) => this.onMessage(slot, message));
    worker.on('error', (error: Error) => {
      slot.lastError = error;
    });
    worker.on('exit', () => this.onExit(slot));
  }

  private onMessage(slot: Slot, message: HostMessage): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.pump();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== message.id) return;
    if (message.ok) this.finish(job, undefined, message.value);
    else this.finish(job, new WorkerPoolError('task_failed', message.message, waited(job)));
  }

  /** A worker exited that the pool did not terminate: it crashed, ran out of heap, or failed to start. */
  private onExit(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return; // terminated by the pool, already accounted for
    this.slots.splice(index, 1);
    this.counters.crashed += 1;
    const detail = slot.lastError ? `${slot.lastError.name}: ${slot.lastError.message}` : 'it exited';
    if (slot.job) this.finish(slot.job, this.failure('crashed', slot.job.options, slot.job, detail));
    if (!slot.ready) {
      // A worker that cannot start will not start on a retry either: fail the waiting tasks now
      // and leave the next run() to try again, instead of restarting in a loop.
      for (const job of [...this.waiting]) {
        this.finish(job, this.failure('crashed', job.options, job, `the worker could not start (${detail})`));
      }
      return;
    }
    this.ensureWorkers();
  }

  /** Hands waiting tasks to idle ready workers, first come first served among owners under their cap. */
  private pump(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const index = this.waiting.findIndex(
        (job) => (this.runningByOwner.get(job.options.owner) ?? 0) < this.maxRunningPerOwner,
      );
      if (index < 0) return;
      const [job] = this.waiting.splice(index, 1);
      if (job) this.start(slot, job);
    }
  }

  private start(slot: Slot, job: Job): void {
    clearTimeout(job.timer);
    job.startedAt = Date.now();
    job.slot = slot;
    slot.job = job;
    const owner = job.options.owner;
    this.runningByOwner.set(owner, (this.runningByOwner.get(owner) ?? 0) + 1);
    job.timer = setTimeout(() => this.kill(slot, 'deadline'), job.options.runMs);
    try {
      slot.worker.postMessage({ id: job.id, task: job.task } satisfies TaskMessage);
    } catch (error) {
      this.finish(job, new WorkerPoolError('task_failed', `the task cannot be sent to a worker: ${String(error)}`));
    }
  }

  private abort(job: Job): void {
    if (job.done) return;
    if (job.slot) this.kill(job.slot, 'aborted');
    else this.finish(job, this.failure('aborted', job.options, job));
  }

  /** Stops a task from outside: its worker is terminated and replaced. */
  private kill(slot: Slot, reason: 'deadline' | 'aborted'): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    this.counters.killed += 1;
    void slot.worker.terminate();
    if (slot.job) this.finish(slot.job, this.failure(reason, slot.job.options, slot.job));
    this.ensureWorkers();
  }

  /** Settles a task once: takes it off the queue or its worker, and lets the next one start. */
  private finish(job: Job, error: WorkerPoolError | undefined, value?: unknown): void {
    if (job.done) return;
    job.done = true;
    clearTimeout(job.timer);
    job.options.signal?.removeEventListener('abort', job.onAbort);
    const index = this.waiting.indexOf(job);
    if (index >= 0) this.waiting.splice(index, 1);
    if (job.slot) {
      if (job.slot.job === job) job.slot.job = undefined;
      const owner = job.options.owner;
      const running = (this.runningByOwner.get(owner) ?? 1) - 1;
      if (running > 0) this.runningByOwner.set(owner, running);
      else this.runningByOwner.delete(owner);
    }
    if (error) job.reject(error);
    else job.resolve(value);
    if (!this.closed) this.pump();
  }

  private failure(reason: WorkerPoolFailure, options: PoolTaskOptions, job?: Job, detail?: string): WorkerPoolError {
    const { name, size } = this.options;
    const ownerRunning = this.runningByOwner.get(options.owner) ?? 0;
    const messages: Record<WorkerPoolFailure, string> = {
      deadline: `the ${name} task ran past ${options.runMs} ms; its worker was terminated and replaced`,
      wait_timeout:
        ownerRunning >= this.maxRunningPerOwner
          ? `no ${name} worker was free for it within ${options.waitMs} ms: its app already runs ${ownerRunning} ` +
            `${name} task(s), the most one app may run at once (${size} workers in the pool)`
          : `no ${name} worker was free within ${options.waitMs} ms (${size} in the pool, all busy)`,
      busy: `too many ${name} tasks are waiting for a worker (${this.waiting.length - 1} in all); try again shortly`,
      aborted: `the ${name} task was cancelled`,
      closed: `the ${name} pool is closed (the server is stopping)`,
      crashed: `the ${name} worker stopped under the task: ${detail ?? 'it exited'}`,
      task_failed: detail ?? `the ${name} task failed`,
    };
    return new WorkerPoolError(reason, messages[reason], job ? waited(job) : 0);
  }
}

function waited(job: Job): number {
  return (job.startedAt ?? Date.now()) - job.submittedAt;
}
