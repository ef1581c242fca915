import type { ToolContext } from '../tools/define-tool.ts';
import type { HandlerOutcome } from './run-handlers.ts';
import type { RunCall, RunMessage, RunResult } from './run-types.ts';

/** Where a run stands after a request: the latest reply and what it waits on. */
export interface Step<Raw> {
  message: RunMessage<Raw>;
  /** Calls for the handlers. */
  calls: RunCall[];
  /** Calls waiting for a person's decision. */
  approvals: RunCall[];
  /** True when `message` is a reply the server just produced (it is then reported as a `message` event). */
  fresh: boolean;
}

/**
 * One face's wire protocol under the generic loop (`run-loop.ts`): how input starts a run, how a
 * step's results go back, how approvals are settled. The loop owns everything else: concurrency,
 * rounds, events, idempotency keys and aborts, so the three faces behave the same.
 */
export interface FaceAdapter<Raw> {
  readonly face: ToolContext['face'];
  /**
   * Whether a step's client results are sent before its approvals are decided (the server holds
   * them until then), or only after (the Responses face refuses outputs while approvals wait).
   */
  readonly resultsBeforeApprovals: boolean;
  /** The conversation, for handler contexts and errors (known once `start` answered). */
  threadId(): string;
  /** Sends the input, or reads what an existing conversation waits on. */
  start(signal: AbortSignal | undefined): Promise<Step<Raw>>;
  /** Sends the results of `step.calls`, all in one request, under `idempotencyKey`. */
  submit(
    step: Step<Raw>,
    outcomes: HandlerOutcome[],
    idempotencyKey: string,
    signal: AbortSignal | undefined,
  ): Promise<Step<Raw>>;
  /** Gets `step.approvals` decided (by `onApproval`, or by waiting for a person) and returns the step after. */
  settleApprovals(step: Step<Raw>, signal: AbortSignal | undefined): Promise<Step<Raw>>;
  /** Input held back until the conversation was free (a run on a paused thread); null when there is none. */
  afterIdle?(signal: AbortSignal | undefined): Promise<Step<Raw> | null>;
  /** Clean-up after an abort (e.g. cancel the turn when asked to). */
  onAbort?(): Promise<void>;
  /** Face-specific fields of the result. */
  resultExtras?(step: Step<Raw>): Partial<RunResult<Raw>>;
}
