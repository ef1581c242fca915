/**
 * Whose fault an error is, as every face needs to know it: Baton's native `type`, the google.rpc
 * status CES falls back to, the JSON-RPC code of MCP. Derived from the HTTP status of an error's
 * catalogue entry, so a code never carries a kind of its own that could disagree with its status.
 */
export type ErrorKind =
  | 'invalid_request' // 400 (and 408, 413, 414, 415, 431, 501): the request is malformed or breaks a rule
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_found' // 404: unknown id, or another app's
  | 'conflict' // 409: out of order or lost a race; retrying the same request will not help
  | 'unprocessable' // 422: well-formed but refers to something unusable
  | 'upstream' // 502: the model provider failed
  | 'unavailable' // 429, 503
  | 'internal'; // 500

export type HttpStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 414 | 415 | 422 | 429 | 431 | 500 | 501 | 502 | 503;

const KIND_BY_STATUS: Record<HttpStatus, ErrorKind> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  408: 'invalid_request',
  409: 'conflict',
  413: 'invalid_request',
  414: 'invalid_request',
  415: 'invalid_request',
  422: 'unprocessable',
  429: 'unavailable',
  431: 'invalid_request',
  500: 'internal',
  501: 'invalid_request',
  502: 'upstream',
  503: 'unavailable',
};

export function kindOfStatus(status: HttpStatus): ErrorKind {
  return KIND_BY_STATUS[status];
}
