import { callInSandbox, type SandboxCall, type SandboxResult } from './js-sandbox.ts';

/**
 * Where a sandboxed call runs. The server uses a SandboxPool (worker threads, sandbox-pool.ts);
 * `inThreadSandbox` runs it in the calling thread, for tests and tools that own their thread.
 */
export interface SandboxRunner {
  /** Throws SandboxError (sandbox-error.ts) when the call fails. */
  run(call: SandboxCall, options?: SandboxRunOptions): Promise<SandboxResult>;
}

export interface SandboxRunOptions {
  /** Whose call it is (an app id): one owner cannot take every worker of a pool. */
  readonly owner?: string;
  /** The caller gave up (a cancelled turn, the tool call's deadline): the run is dropped or stopped. */
  readonly signal?: AbortSignal;
}

/** Runs calls in the calling thread, blocking it for the call (see js-sandbox.ts). */
export const inThreadSandbox: SandboxRunner = {
  run: (call) => callInSandbox(call),
};
