/**
 * The SDK's error types. Every failure a caller can act on has its own class, so code can branch
 * on `instanceof` instead of parsing messages: an API refusal (`BatonError`, with the server's
 * stable `code`), a network that stayed down through the retries, a request that took too long,
 * a run that cannot go on (`BatonRunError`), and a tool worker's lost lease (`BatonLeaseLostError`).
 * Aborts are `AbortError`s, as `fetch` reports them.
 */

/** An error answer of the API, in any of Baton's three dialects, normalised. */
export class BatonError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** Stable machine-readable code (`thread_not_found`, `tool_calls_pending`, …); null if the body had none. */
  readonly code: string | null;
  /** Error family: `not_found_error` (native, OpenAI style) or a google.rpc status (`FAILED_PRECONDITION`). */
  readonly type: string | null;
  /** The request field at fault (`content[1].tool_call_id`, `model`), when the server named one. */
  readonly param: string | null;
  /** Extra facts the server sent (e.g. `pending_tool_call_ids`, or a google ErrorInfo's metadata). */
  readonly details: Record<string, unknown>;
  /** The parsed response body (or its text when it was not JSON). */
  readonly body: unknown;
  /** The server's request id, for its logs. */
  readonly requestId: string | null;

  constructor(init: {
    status: number;
    code: string | null;
    type: string | null;
    message: string;
    param: string | null;
    details?: Record<string, unknown>;
    body: unknown;
    requestId?: string | null;
  }) {
    super(init.message);
    this.name = 'BatonError';
    this.status = init.status;
    this.code = init.code;
    this.type = init.type;
    this.param = init.param;
    this.details = init.details ?? {};
    this.body = init.body;
    this.requestId = init.requestId ?? null;
  }
}

/** The server could not be reached (or the connection broke) and the retries were used up. */
export class BatonConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BatonConnectionError';
  }
}

/** A request got no complete answer within its timeout (`timeoutMs`). */
export class BatonTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

export type BatonRunErrorCode = 'max_rounds' | 'turn_failed' | 'unexpected_reply';

/** A tool loop that cannot finish: too many rounds, or a turn that ended without an answer. */
export class BatonRunError extends Error {
  readonly code: BatonRunErrorCode;
  /** The thread (conversation) the run was on, so it can be inspected or resumed. */
  readonly threadId: string | null;

  constructor(code: BatonRunErrorCode, message: string, threadId: string | null) {
    super(message);
    this.name = 'BatonRunError';
    this.code = code;
    this.threadId = threadId;
  }
}

/** Why a worker no longer holds a call: the server said so, or the lease ran out before a heartbeat got through. */
export type LeaseLostReason = 'lease_lost' | 'lapsed';

/**
 * A tool worker lost a call's lease: another worker may run it now, so the handler's signal
 * aborts with this error and its result is not submitted (the server would refuse it anyway).
 */
export class BatonLeaseLostError extends Error {
  /** The API's code for it, so code branching on `error.code` treats it as the 409 it stands for. */
  readonly code = 'lease_lost';
  readonly callId: string;
  /** `lease_lost`: the server said so; `lapsed`: the lease ran out here before a renewal got through. */
  readonly reason: LeaseLostReason;

  constructor(callId: string, reason: LeaseLostReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BatonLeaseLostError';
    this.callId = callId;
    this.reason = reason;
  }
}

/** The error an aborted call rejects with: the signal's own reason when it is an Error, else an AbortError. */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The operation was aborted.', 'AbortError');
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** Why `verifyWebhook` refused a request. */
export type WebhookVerificationFailure =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_payload';

/**
 * A webhook request that does not prove it comes from Baton (or came too late): answer it with a
 * 4xx and do not act on it. `reason` says why; the message says it in words.
 */
export class BatonWebhookVerificationError extends Error {
  readonly reason: WebhookVerificationFailure;

  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message);
    this.name = 'BatonWebhookVerificationError';
    this.reason = reason;
  }
}
