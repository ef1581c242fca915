import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.ts';
import { kindOfStatus, type ErrorKind, type HttpStatus } from './error-kind.ts';

export interface BatonErrorOptions {
  /** The request field at fault, as a path such as `content[1].tool_call_id`. */
  param?: string | null;
  /** Machine-readable facts every face renders beside the message, e.g. the pending call ids. */
  details?: Record<string, unknown>;
  /**
   * The ids and fields involved, for a face that words the error in its own dialect (the
   * Responses face speaks of `call_id`s where the engine speaks of calls). Never rendered as such.
   */
  data?: Record<string, unknown>;
  /** When a retry may succeed (a limit's window resets, a slot frees up): sent as `Retry-After`. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * Baton's one error type, thrown by the engine, the resources, the server and the faces alike.
 * `code` comes from the catalogue, which fixes its HTTP status and kind; `message` names the
 * field or id and what to do next. Each face renders it in its own format.
 */
export class BatonError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly details: Record<string, unknown>;
  readonly data: Record<string, unknown>;
  readonly retryAfterSeconds: number | null;

  constructor(code: ErrorCode, message: string, options: BatonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BatonError';
    this.code = code;
    this.param = options.param ?? null;
    this.details = options.details ?? {};
    this.data = options.data ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }

  /** The HTTP status of the native and Responses faces (the CES face maps its own). */
  get status(): HttpStatus {
    return ERROR_CATALOGUE[this.code].status;
  }

  get kind(): ErrorKind {
    return kindOfStatus(this.status);
  }
}
