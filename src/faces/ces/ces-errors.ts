import { EngineError, type EngineErrorKind } from '../../engine/engine-error.ts';

/** google.rpc.Code names used by the CES face, with their HTTP mapping. */
export const GRPC_STATUS = {
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
} as const;

export type GrpcStatus = keyof typeof GRPC_STATUS;

const KIND_TO_STATUS: Record<EngineErrorKind, GrpcStatus> = {
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

/** Engine codes whose google.rpc status differs from their kind's. */
const CODE_TO_STATUS: Record<string, GrpcStatus> = {
  tool_calls_pending: 'FAILED_PRECONDITION',
  thread_not_pending: 'FAILED_PRECONDITION',
  tool_call_already_resolved: 'FAILED_PRECONDITION',
  thread_busy: 'ABORTED',
  concurrent_update: 'ABORTED',
  agent_deleted: 'FAILED_PRECONDITION',
};

const KIND_FOR_STATUS: Record<GrpcStatus, EngineErrorKind> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  UNAUTHENTICATED: 'unauthorized',
  PERMISSION_DENIED: 'forbidden',
  NOT_FOUND: 'not_found',
  ABORTED: 'conflict',
  ALREADY_EXISTS: 'conflict',
  RESOURCE_EXHAUSTED: 'unavailable',
  UNIMPLEMENTED: 'invalid_request',
  INTERNAL: 'internal',
  UNAVAILABLE: 'unavailable',
};

/**
 * An error with an explicit google.rpc status. `reason` becomes the ErrorInfo reason
 * (UPPER_SNAKE_CASE), `metadata` its string map, `field` a BadRequest field violation.
 */
export function cesError(
  status: GrpcStatus,
  reason: string,
  message: string,
  options: { field?: string; metadata?: Record<string, string> } = {},
): EngineError {
  return new EngineError(KIND_FOR_STATUS[status], reason.toLowerCase(), message, {
    param: options.field ?? null,
    details: {
      grpcStatus: status,
      status: GRPC_STATUS[status].http,
      ...(options.metadata ? { metadata: options.metadata } : {}),
    },
  });
}

export function grpcStatusOf(error: EngineError): GrpcStatus {
  const explicit = error.details.grpcStatus;
  if (typeof explicit === 'string' && explicit in GRPC_STATUS) return explicit as GrpcStatus;
  return CODE_TO_STATUS[error.code] ?? KIND_TO_STATUS[error.kind];
}

function metadataOf(error: EngineError): Record<string, string> {
  const metadata: Record<string, string> = {};
  const explicit = error.details.metadata;
  if (explicit && typeof explicit === 'object') Object.assign(metadata, explicit);
  // Engine details (e.g. pending_tool_call_ids) as strings, so a client can recover without parsing prose.
  for (const [key, value] of Object.entries(error.details)) {
    if (key === 'metadata' || key === 'grpcStatus' || key === 'status') continue;
    const camel = key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
    metadata[camel] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return metadata;
}

/** The JSON body Google APIs send for a google.rpc.Status: `{error:{code,message,status,details}}`. */
export function googleErrorBody(error: EngineError): { status: number; body: object } {
  const status = grpcStatusOf(error);
  // 413 and 415 keep their precise HTTP status; everything else follows the google.rpc mapping.
  const http = typeof error.details.status === 'number' ? error.details.status : GRPC_STATUS[status].http;
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
