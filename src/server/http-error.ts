import { EngineError, type EngineErrorKind } from '../engine/engine-error.ts';
import { InvalidCursorError } from '../store/invalid-cursor-error.ts';

export const STATUS_BY_KIND: Record<EngineErrorKind, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};

const TYPE_BY_KIND: Record<EngineErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  unauthorized: 'authentication_error',
  forbidden: 'permission_error',
  not_found: 'not_found_error',
  conflict: 'conflict_error',
  unprocessable: 'invalid_request_error',
  upstream: 'model_error',
  unavailable: 'api_error',
  internal: 'api_error',
};

/** Baton's native error body (Threads, ledger and agents APIs): `{error:{type,code,message,param,...}}`. */
export function nativeErrorBody(error: EngineError): { error: Record<string, unknown> } {
  const { status: _status, ...details } = error.details;
  return {
    error: {
      type: TYPE_BY_KIND[error.kind],
      code: error.code,
      message: error.message,
      param: error.param,
      ...details,
    },
  };
}

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
  validation?: unknown;
}

/**
 * Turns Fastify's own errors (bad JSON, wrong content type, body too large) and unknown failures
 * into EngineErrors, so every face renders them in its own format.
 */
export function toEngineError(error: unknown, bodyLimitBytes: number): EngineError {
  if (error instanceof EngineError) return error;
  if (error instanceof InvalidCursorError) {
    return new EngineError(
      'invalid_request',
      'invalid_cursor',
      'Invalid cursor in `after`: pass the next_cursor value from a previous page.',
      { param: 'after' },
    );
  }
  const fastifyError = error as FastifyLikeError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new EngineError(
        'invalid_request',
        'invalid_json',
        `The request body is not valid JSON: ${fastifyError.message}. Send a JSON object with Content-Type: application/json.`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new EngineError(
        'invalid_request',
        'unsupported_media_type',
        `Unsupported Content-Type: send the body as JSON with Content-Type: application/json.`,
        {
          details: { status: 415 },
        },
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new EngineError(
        'invalid_request',
        'body_too_large',
        `The request body is larger than the limit of ${bodyLimitBytes} bytes (server.body_limit_bytes).`,
        {
          details: { status: 413 },
        },
      );
    default:
      break;
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new EngineError(
      'invalid_request',
      (fastifyError.code ?? 'bad_request').toLowerCase(),
      fastifyError.message,
      { details: { status: fastifyError.statusCode } },
    );
  }
  return new EngineError(
    'internal',
    'internal_error',
    'Internal server error. The failure was logged with the request id; retry later.',
  );
}

/** The HTTP status of an error; a few input errors carry a more precise one than their kind. */
export function statusOf(error: EngineError): number {
  const explicit = error.details.status;
  return typeof explicit === 'number' ? explicit : STATUS_BY_KIND[error.kind];
}
