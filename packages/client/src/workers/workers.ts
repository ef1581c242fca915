import type { ToolCalls } from '../resources/tool-calls.ts';
import { runWorkerFleet } from './worker-fleet.ts';
import type { WorkerRunOptions, WorkerRunSummary } from './worker-options.ts';

/**
 * Tool workers: a process of your own that answers the calls of tools marked
 * `"executor": "worker"`, whoever's conversation they come from.
 *
 * ```ts
 * const stop = new AbortController();
 * process.once('SIGTERM', () => stop.abort());
 * await baton.workers.run({
 *   handlers: { check_stock: async ({ sku }: { sku: string }, ctx) => ({ sku, in_stock: 4 }) },
 *   signal: stop.signal,
 * });
 * ```
 */
export class Workers {
  constructor(private readonly toolCalls: ToolCalls) {}

  /**
   * Runs a fleet until `signal` aborts: claims calls of the handlers' tools (never more than
   * `concurrency` at once), runs each handler under a heartbeated lease and submits its result
   * with the lease token. Resolves, once stopped and drained, with what became of the claims;
   * rejects only when the server refuses the claims in a way retrying cannot fix (a bad key, an
   * unknown tool), after the running handlers have finished.
   */
  run(options: WorkerRunOptions): Promise<WorkerRunSummary> {
    return runWorkerFleet(this.toolCalls, options);
  }
}
