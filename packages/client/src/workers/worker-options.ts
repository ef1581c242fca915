import type { ToolInput } from '../tools/define-tool.ts';
import type { LedgerEntry } from '../wire/ledger.ts';

/** The public shapes of `baton.workers.run`: a fleet that claims, runs and answers worker-tool calls. */

/** The lease a handler's call is held under. Live: a heartbeat updates it. */
export interface WorkerLease {
  /** The token that holds the call; the result is submitted with it. */
  readonly token: string;
  /** When the lease ends unless renewed, as the server last said (each heartbeat moves it). */
  readonly expiresAt: Date;
}

/** What a worker handler knows about the call it runs. */
export interface WorkerContext {
  /** The call as claimed: its id, input, thread, agent, attempts. */
  call: LedgerEntry;
  lease: WorkerLease;
  /** Which attempt this is (1 for the first claim; lapsed leases count, released claims do not). */
  attempt: number;
  /**
   * Aborts when the lease is lost (another worker may be running the call: stop, the result will
   * not be sent) or when a stop gives up waiting (`shutdownTimeoutMs`). The reason says which.
   */
  signal: AbortSignal;
}

/**
 * Runs one call: a string result is sent as is, anything else as JSON; a thrown error becomes an
 * `is_error` result carrying its message. Extracted from a method on purpose: method parameters
 * are bivariant, so a handler may declare its input's type (`(input: { sku: string }) => …`).
 */
export type WorkerHandler<I = ToolInput> = {
  handler(input: I, context: WorkerContext): unknown;
}['handler'];

/** Where an error reported to `onError` happened. */
export type WorkerErrorStage = 'claim' | 'renew' | 'submit' | 'release';

export interface WorkerErrorContext {
  stage: WorkerErrorStage;
  /** The call concerned (null for a claim). */
  call: LedgerEntry | null;
}

export interface WorkerRunOptions {
  /** Handlers by tool name; the names are the tools the fleet claims calls of. */
  handlers: Readonly<Record<string, WorkerHandler>>;
  /**
   * Stops the fleet: no more claims, claims not yet started are released, running handlers
   * finish and submit (their leases kept alive meanwhile); then `run` resolves.
   */
  signal: AbortSignal;
  /** How many handlers run at once (default 4); the fleet claims only as many calls as it has free slots. */
  concurrency?: number;
  /** Only calls made by these agents. */
  agents?: readonly string[];
  /** Each lease's length (default 60 s); a heartbeat renews it every third of it. */
  leaseSeconds?: number;
  /** How long each claim waits for a call when none is pending (default 20 s, at most 60). */
  waitSeconds?: number;
  /** A label for this worker, shown in the console (default: the key id). */
  worker?: string;
  /**
   * After `signal` aborts, how long to wait for running handlers (default: as long as they take).
   * Past it their signals abort, their results are not sent (the leases lapse) and `run` resolves.
   */
  shutdownTimeoutMs?: number;
  /**
   * Sees what went wrong without stopping the fleet: failed claims (retried with back-off),
   * heartbeats, submits and releases, and lost leases (`BatonLeaseLostError`). Default: console.warn.
   */
  onError?: (error: unknown, context: WorkerErrorContext) => void;
}

/** What became of the calls the fleet claimed, once `run` resolves. */
export interface WorkerRunSummary {
  /** Results the server accepted. */
  submitted: number;
  /** Calls whose lease was lost; their results were not sent. */
  lost: number;
  /** Claims given back unstarted. */
  released: number;
  /** Handlers still running when a stop gave up on them. */
  abandoned: number;
  /** Results the server refused for another reason (reported to `onError`). */
  failed: number;
}

/** The options with their defaults, checked. */
export interface WorkerSettings {
  handlers: ReadonlyMap<string, WorkerHandler>;
  tools: string[];
  signal: AbortSignal;
  concurrency: number;
  agents: readonly string[] | undefined;
  leaseSeconds: number;
  waitSeconds: number;
  worker: string | undefined;
  shutdownTimeoutMs: number;
  onError: (error: unknown, context: WorkerErrorContext) => void;
}

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_LEASE_SECONDS = 60;
export const DEFAULT_WAIT_SECONDS = 20;

export function workerSettings(options: WorkerRunOptions): WorkerSettings {
  const handlers = new Map(Object.entries(options.handlers));
  if (handlers.size === 0) throw new TypeError('workers.run needs at least one handler (handlers: { tool_name: fn }).');
  for (const [name, handler] of handlers)
    if (typeof handler !== 'function') throw new TypeError(`The handler of '${name}' is not a function.`);
  if (!(options.signal instanceof AbortSignal))
    throw new TypeError('workers.run needs a signal: aborting it is how the fleet stops gracefully.');
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new TypeError(`concurrency must be a whole number of at least 1 (got ${concurrency}).`);
  const leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  if (!Number.isFinite(leaseSeconds) || leaseSeconds <= 0)
    throw new TypeError(`leaseSeconds must be a positive number (got ${leaseSeconds}).`);
  const waitSeconds = options.waitSeconds ?? DEFAULT_WAIT_SECONDS;
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0)
    throw new TypeError(`waitSeconds must be 0 or more (got ${waitSeconds}).`);
  const onError = options.onError;
  return {
    handlers,
    tools: [...handlers.keys()],
    signal: options.signal,
    concurrency,
    agents: options.agents,
    leaseSeconds,
    waitSeconds,
    worker: options.worker,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? Number.POSITIVE_INFINITY,
    // A throwing onError must not take the fleet down with it.
    onError: (error, context) => {
      try {
        (onError ?? warn)(error, context);
      } catch {
        // Reporting failed; the fleet goes on regardless.
      }
    },
  };
}

/** A fleet runs unattended: an error nobody sees would be a fleet that silently does nothing. */
function warn(error: unknown, context: WorkerErrorContext): void {
  const where = context.call ? `${context.stage} ${context.call.id}` : context.stage;
  globalThis.console?.warn(`[baton workers] ${where}:`, error);
}
