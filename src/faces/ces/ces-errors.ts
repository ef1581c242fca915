import type { BatonError } from '../../domain/errors/baton-error.ts';
import { ERROR_CATALOGUE, type ErrorEntry } from '../../domain/errors/error-catalogue.ts';
import type { ErrorKind } from '../../domain/errors/error-kind.ts';
import type { GrpcStatus } from '../../domain/errors/grpc-status.ts';

/** google.rpc.Code names used by the CES face, with their HTTP mapping. */
export const GRPC_STATUS: Record<GrpcStatus, { code: number; http: number }> = {
  INVALID_ARGUMENT: { code: 3, http: 400 },
  FAILED_PRECONDITION: { code: 9, http: 400 },
  OUT_OF_RANGE: { code: 11, http: 400 },
  UNAUTHENTICATED: { code: 16, http: 401 },
  PERMISSION_DENIED: { code: 7, http: 403 },
  NOT_FOUND: { code: 5, http: 404 },
  ABORTED: { code: 10, http: 409 },
  ALREADY_EXISTS: { code: 6, http: 409 },
  RESOURCE_EXHAUSTED: { code: 8, http: 429 },
  UNIMPLEMENTED: { code: 12, http: 501 },
  INTERNAL: { code: 13, http: 500 },
  UNAVAILABLE: { code: 14, http: 503 },
};

const HTTP_LEVEL_STATUSES: ReadonlySet<number> = new Set([408, 413, 414, 415, 431]);

const KIND_TO_STATUS: Record<ErrorKind, GrpcStatus> = {
  invalid_request: 'INVALID_ARGUMENT',
  unauthorized: 'UNAUTHENTICATED',
  forbidden: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  conflict: 'ABORTED',
  unprocessable: 'FAILED_PRECONDITION',
  upstream: 'UNAVAILABLE',
  unavailable: 'UNAVAILABLE',
  internal: 'INTERNAL',
};

/** The google.rpc status of an error: its catalogue entry's, else the default for its kind. */
export function grpcStatusOf(error: BatonError): GrpcStatus {
  const entry: ErrorEntry = ERROR_CATALOGUE[error.code];
  return entry.grpc ?? KIND_TO_STATUS[error.kind];
}

function metadataOf(error: BatonError): Record<string, string> {
  const metadata: Record<string, string> = {};
  // Engine details (e.g. pending_tool_call_ids) as strings, so a client can recover without parsing prose.
  for (const [key, value] of Object.entries(error.details)) {
    const camel = key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
    metadata[camel] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return metadata;
}

/** The JSON body Google APIs send for a google.rpc.Status: `{error:{code,message,status,details}}`. */
export function googleErrorBody(error: BatonError): { status: number; body: object } {
  const status = grpcStatusOf(error);
  // HTTP's own refusals (408, 413, 414, 415, 431) keep their precise status; everything else
  // follows the google.rpc mapping.
  const http = HTTP_LEVEL_STATUSES.has(error.status) ? error.status : GRPC_STATUS[status].http;
  const details: object[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: error.code.toUpperCase(),
      domain: 'baton',
      metadata: metadataOf(error),
    },
  ];
  if (error.param) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: error.param, description: error.message }],
    });
  }
  return { status: http, body: { error: { code: http, message: error.message, status, details } } };
}
