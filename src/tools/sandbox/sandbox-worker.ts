import { preloadJsSandbox, runPreparedCall, type PreparedSandboxCall, type SandboxResult } from './js-sandbox.ts';
import { SandboxError, type SandboxErrorData } from './sandbox-error.ts';

/**
 * The task module of the sandbox pool's workers (sandbox-pool.ts, workers/worker-pool.ts): runs
 * one prepared call in this worker thread. A SandboxError comes back as data, since an Error
 * crossing threads keeps only its message; anything else is a bug and fails the task.
 */

export interface SandboxTask {
  readonly call: PreparedSandboxCall;
}

export type SandboxTaskOutcome =
  { readonly ok: true; readonly result: SandboxResult } | { readonly ok: false; readonly error: SandboxErrorData };

/** The worker reports ready once the WASM module for the default limits is loaded. */
export const ready: Promise<void> = preloadJsSandbox();

export default async function runSandboxTask(task: SandboxTask): Promise<SandboxTaskOutcome> {
  try {
    return { ok: true, result: await runPreparedCall(task.call) };
  } catch (error) {
    if (error instanceof SandboxError) return { ok: false, error: error.toData() };
    throw error;
  }
}
