import { BatonError } from '../../domain/errors/baton-error.ts';
import { nativeMessage } from './native-wording.ts';
import type { ErrorKind } from '../../domain/errors/error-kind.ts';
import { InvalidCursorError } from '../../domain/invalid-cursor-error.ts';

const TYPE_BY_KIND: Record<ErrorKind, string> = {
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
export function nativeErrorBody(error: BatonError): { error: Record<string, unknown> } {
  return {
    error: {
      // A limit (429) is told apart from unavailability (503), as OpenAI's `rate_limit_error` is.
      type: error.status === 429 ? 'rate_limit_error' : TYPE_BY_KIND[error.kind],
      code: error.code,
      message: nativeMessage(error),
      param: error.param,
      ...error.details,
    },
  };
}

/** Fastify's `maxParamLength` (its default): longer path parameters are refused with a 414. */
export const MAX_PATH_SEGMENT_LENGTH = 100;

/** The path a Fastify URL error quotes (`'/v1/x' is not a valid url component`), shortened, then a space. */
function quotedPath(message: string): string {
  const path = /^'(.*)' is /.exec(message)?.[1];
  if (path === undefined) return '';
  return `'${path.length > 120 ? `${path.slice(0, 120)}…` : path}' `;
}

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
  validation?: unknown;
}

/**
 * Turns Fastify's own errors (bad JSON, wrong content type, body too large) and unknown failures
 * into BatonErrors, so every face renders them in its own format.
 */
export function toBatonError(error: unknown, bodyLimitBytes: number): BatonError {
  if (error instanceof BatonError) return error;
  if (error instanceof InvalidCursorError) {
    return new BatonError(
      'invalid_cursor',
      'Invalid cursor in `after`: pass the next_cursor value from a previous page.',
      { param: 'after' },
    );
  }
  const fastifyError = error as FastifyLikeError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BatonError(
        'invalid_json',
        `The request body is not valid JSON: ${fastifyError.message}. Send a JSON object with Content-Type: application/json.`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new BatonError(
        'unsupported_media_type',
        `Unsupported Content-Type: send the body as JSON with Content-Type: application/json.`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new BatonError(
        'bad_request',
        'The body is not as long as its Content-Length header says. Send the header that matches the body, or none.',
      );
    case 'FST_ERR_BAD_URL':
      return new BatonError(
        'bad_request',
        `The URL path ${quotedPath(fastifyError.message)}is not valid: it holds malformed percent-encoding or bytes ` +
          'that are not UTF-8. Percent-encode each byte of a UTF-8 path segment, e.g. %C3%A9 for é.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new BatonError(
        'uri_too_long',
        `A segment of the URL path ${quotedPath(fastifyError.message)}is longer than ${MAX_PATH_SEGMENT_LENGTH} ` +
          "characters, which no Baton id is. Check the URL's ids.",
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new BatonError(
        'body_too_large',
        `The request body is larger than the limit of ${bodyLimitBytes} bytes (server.body_limit_bytes).`,
      );
    default:
      break;
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    // Fastify's other refusals (a malformed URL, a bad header) are all the client's to fix.
    return new BatonError('bad_request', fastifyError.message);
  }
  return new BatonError(
    'internal_error',
    'Internal server error. The failure was logged with the request id; retry later.',
  );
}
