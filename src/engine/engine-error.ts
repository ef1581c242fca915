/**
 * The engine's one error type. `kind` says whose fault it is and maps to an HTTP status in every
 * face; `code` is stable and machine-readable; `message` names the field or id and what to do next.
 */
export type EngineErrorKind =
  | 'invalid_request' // 400: the request is malformed or breaks a rule
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_found' // 404: unknown id, or another app's
  | 'conflict' // 409: out of order or lost a race; retrying the same request will not help
  | 'unprocessable' // 422: well-formed but refers to something unusable
  | 'upstream' // 502: the model provider failed
  | 'unavailable' // 503
  | 'internal'; // 500

export class EngineError extends Error {
  readonly kind: EngineErrorKind;
  readonly code: string;
  /** The request field at fault, as a path such as `content[1].tool_call_id`. */
  readonly param: string | null;
  /** Extra machine-readable facts, e.g. the pending call ids. */
  readonly details: Record<string, unknown>;

  constructor(
    kind: EngineErrorKind,
    code: string,
    message: string,
    options: { param?: string | null; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.kind = kind;
    this.code = code;
    this.param = options.param ?? null;
    this.details = options.details ?? {};
  }
}

export function notFound(what: string, id: string, hint = ''): EngineError {
  return new EngineError(
    'not_found',
    `${what.replace(/ /g, '_')}_not_found`,
    `No ${what} found with id '${id}'.${hint ? ' ' + hint : ''}`,
  );
}
