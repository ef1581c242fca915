/**
 * Why a worker pool did not return a task's result. Callers turn these into their own errors
 * (a sandbox timeout, an OpenAPI document that took too long), in their own words.
 */
export type WorkerPoolFailure =
  /** The task ran past its run budget; its worker was terminated and is being replaced. */
  | 'deadline'
  /** The task waited for a free worker longer than it may. */
  | 'wait_timeout'
  /** Too many tasks are waiting already (in all, or for this owner); the task was refused at once. */
  | 'busy'
  /** The caller's signal aborted (the turn was cancelled, or its deadline passed). */
  | 'aborted'
  /** The pool was closed (the server is stopping). */
  | 'closed'
  /** The worker died under the task (out of memory, a crash) or could not start. */
  | 'crashed'
  /** The task's handler threw; the message is the handler's. */
  | 'task_failed';

export class WorkerPoolError extends Error {
  constructor(
    readonly reason: WorkerPoolFailure,
    message: string,
    /** How long the task waited for a worker, ms (0 when it never got one). */
    readonly waitedMs = 0,
  ) {
    super(message);
    this.name = 'WorkerPoolError';
  }
}
