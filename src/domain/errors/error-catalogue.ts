import type { HttpStatus } from './error-kind.ts';
import type { GrpcStatus } from './grpc-status.ts';

/** The faces that render an error, in their own format; `all` for errors any request can meet. */
export type Face = 'threads' | 'responses' | 'ces' | 'mcp' | 'ledger' | 'agents' | 'admin' | 'all';

export interface ErrorEntry {
  /** The HTTP status of Baton's native API (Threads, ledger, agents) and of the Responses face. */
  status: HttpStatus;
  /**
   * The google.rpc status the CES face (and the MCP endpoint) renders, when it is not the default
   * for `status`; the CES face answers with that status's own HTTP code.
   */
  grpc?: GrpcStatus;
  faces: readonly Face[];
  /** What went wrong and what to do about it, for the docs (docs/errors.md). */
  meaning: string;
}

/**
 * Every error code Baton answers with, in one place. A `BatonError` takes its code from here
 * (the type says so), its status and kind follow from it, and docs/errors.md is generated from
 * it (`npm run docs:errors`). test/domain/error-catalogue.test.ts fails on a code that is used but
 * missing here, or listed here but never used.
 */
export const ERROR_CATALOGUE = {
  admin_key_required: {
    status: 403,
    grpc: 'PERMISSION_DENIED',
    faces: ['admin', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  agent_deleted: {
    status: 422,
    grpc: 'FAILED_PRECONDITION',
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  agent_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  agent_in_use: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  agent_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['agents', 'ces', 'mcp', 'threads', 'ledger', 'responses'],
    meaning: 'TODO',
  },
  agent_version_mismatch: {
    status: 409,
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  agent_version_missing: {
    status: 500,
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  app_access_denied: {
    status: 403,
    grpc: 'PERMISSION_DENIED',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  app_deleted: {
    status: 403,
    grpc: 'PERMISSION_DENIED',
    faces: ['admin', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  app_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['admin', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  app_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  approval_pending: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  approval_required: {
    status: 409,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  approvals_pending: {
    status: 409,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  background_not_supported: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  background_requires_store: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  bad_request: {
    status: 400,
    faces: ['all'],
    meaning: 'TODO',
  },
  body_too_large: {
    status: 413,
    faces: ['all'],
    meaning: 'TODO',
  },
  branch_has_open_calls: {
    status: 409,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  concurrent_update: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['threads', 'ledger', 'responses', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  conversation_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  deleting_own_app: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  duplicate_call_id: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  duplicate_display_name: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  duplicate_sort_key: {
    status: 500,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  duplicate_tool_name: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  duplicate_tool_output: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  duplicate_tool_response: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  duplicate_tool_result: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  empty_content: {
    status: 400,
    faces: ['threads'],
    meaning: 'TODO',
  },
  empty_input: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  etag_mismatch: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  idempotency_key_in_use: {
    status: 409,
    faces: ['all'],
    meaning: 'TODO',
  },
  idempotency_key_reused: {
    status: 422,
    faces: ['all'],
    meaning: 'TODO',
  },
  internal_error: {
    status: 500,
    faces: ['responses', 'threads', 'all'],
    meaning: 'TODO',
  },
  interrupted: {
    status: 502,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  invalid_agent_name: {
    status: 400,
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_api_key: {
    status: 401,
    faces: ['all'],
    meaning: 'TODO',
  },
  invalid_argument: {
    status: 400,
    faces: ['mcp'],
    meaning: 'TODO',
  },
  invalid_arguments: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  invalid_authorization_header: {
    status: 401,
    faces: ['all'],
    meaning: 'TODO',
  },
  invalid_body: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_compaction: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  invalid_cursor: {
    status: 400,
    faces: ['responses', 'threads', 'all'],
    meaning: 'TODO',
  },
  invalid_field: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_filter: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_history_limit: {
    status: 400,
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_idempotency_key: {
    status: 400,
    faces: ['all'],
    meaning: 'TODO',
  },
  invalid_input_policy: {
    status: 400,
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_json: {
    status: 400,
    faces: ['responses', 'all'],
    meaning: 'TODO',
  },
  invalid_jsonrpc_request: {
    status: 400,
    faces: ['mcp'],
    meaning: 'TODO',
  },
  invalid_last_event_id: {
    status: 400,
    faces: ['ledger'],
    meaning: 'TODO',
  },
  invalid_max_steps: {
    status: 400,
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_media: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_message: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  invalid_model: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_openapi_schema: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_order_by: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_page_size: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_page_token: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_page_token_secret: {
    status: 500,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_reference: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_request: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp', 'all'],
    meaning: 'TODO',
  },
  invalid_resource_id: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_resource_name: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_role: {
    status: 400,
    faces: ['threads'],
    meaning: 'TODO',
  },
  invalid_secret_reference: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_secret_value: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_session_id: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_timeout: {
    status: 400,
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_timeout_policy: {
    status: 400,
    faces: ['agents', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_tool_call_id: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  invalid_tool_calls: {
    status: 502,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  invalid_tool_name: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['threads', 'ledger', 'responses', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_tool_parameters: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['threads', 'ledger', 'responses', 'ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_tool_response_schema: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  invalid_tool_schema: {
    status: 500,
    faces: ['mcp'],
    meaning: 'TODO',
  },
  invalid_update_mask: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  invalid_value: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  item_not_found: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  mcp_server_unavailable: {
    status: 503,
    grpc: 'UNAVAILABLE',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  method_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  missing_api_key: {
    status: 401,
    faces: ['mcp', 'all'],
    meaning: 'TODO',
  },
  missing_model: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  missing_resource_name: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  missing_tool_results: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  mixed_content: {
    status: 400,
    faces: ['threads'],
    meaning: 'TODO',
  },
  model_error: {
    status: 502,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  model_mismatch: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  model_not_configured: {
    status: 502,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  model_not_found: {
    status: 404,
    faces: ['responses'],
    meaning: 'TODO',
  },
  no_input_items: {
    status: 500,
    faces: ['responses'],
    meaning: 'TODO',
  },
  no_root_agent: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  not_a_client_tool_call: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  not_an_approval: {
    status: 409,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  nothing_to_update: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  openapi_schema_invalid: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  page_token_mismatch: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  previous_response_in_progress: {
    status: 409,
    faces: ['responses'],
    meaning: 'TODO',
  },
  previous_response_not_found: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  previous_response_not_latest: {
    status: 409,
    faces: ['responses'],
    meaning: 'TODO',
  },
  project_access_denied: {
    status: 403,
    grpc: 'PERMISSION_DENIED',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  repeated_query_parameter: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  required_field: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  resource_in_use: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  response_already_continued: {
    status: 409,
    faces: ['responses'],
    meaning: 'TODO',
  },
  response_missing: {
    status: 500,
    faces: ['responses'],
    meaning: 'TODO',
  },
  response_not_cancellable: {
    status: 409,
    faces: ['responses'],
    meaning: 'TODO',
  },
  response_not_found: {
    status: 404,
    faces: ['responses'],
    meaning: 'TODO',
  },
  retrieve_tools_unavailable: {
    status: 501,
    grpc: 'UNIMPLEMENTED',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  route_not_found: {
    status: 404,
    faces: ['responses', 'all'],
    meaning: 'TODO',
  },
  secret_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  secret_in_use: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  secret_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces'],
    meaning: 'TODO',
  },
  secret_too_large: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  secret_unreadable: {
    status: 500,
    grpc: 'INTERNAL',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  server_closing: {
    status: 503,
    faces: ['responses'],
    meaning: 'TODO',
  },
  server_executed_call: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  session_busy: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  session_ended: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  session_name_mismatch: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  stream_required: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  thread_busy: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  thread_not_active: {
    status: 409,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  thread_not_found: {
    status: 404,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  thread_not_pending: {
    status: 409,
    grpc: 'FAILED_PRECONDITION',
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  too_many_streams: {
    status: 503,
    faces: ['ledger'],
    meaning: 'TODO',
  },
  too_many_tools: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_call_already_resolved: {
    status: 409,
    grpc: 'FAILED_PRECONDITION',
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_call_expired: {
    status: 502,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_call_id_required: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  tool_call_not_found: {
    status: 404,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_call_not_pending: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  tool_call_without_output: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_calls_pending: {
    status: 409,
    grpc: 'FAILED_PRECONDITION',
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_definition_not_found: {
    status: 404,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  tool_gone: {
    status: 422,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_mismatch: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  tool_not_found: {
    status: 404,
    faces: ['mcp'],
    meaning: 'TODO',
  },
  tool_output_without_call: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  tool_responses_pending: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  toolset_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  toolset_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  turn_cancelled: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  turn_failed: {
    status: 503,
    grpc: 'UNAVAILABLE',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  turn_not_found: {
    status: 404,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  unexpected_function_call: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  unexpected_queue: {
    status: 500,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  union_conflict: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  union_missing: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  unknown_agent: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  unknown_allowed_tool: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  unknown_message_type: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  unknown_parameter: {
    status: 400,
    faces: ['all'],
    meaning: 'TODO',
  },
  unknown_query_parameter: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  unknown_tool_call: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  unknown_tool_choice: {
    status: 400,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning: 'TODO',
  },
  unknown_tool_id: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  unsupported_field: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  unsupported_file_id: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  unsupported_input: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'TODO',
  },
  unsupported_media_type: {
    status: 415,
    faces: ['all'],
    meaning: 'TODO',
  },
  unsupported_tool_type: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
  websocket_connection_limit_reached: {
    status: 400,
    faces: ['responses'],
    meaning: 'TODO',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}
