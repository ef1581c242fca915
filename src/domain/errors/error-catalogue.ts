import type { HttpStatus } from './error-kind.ts';
import type { GrpcStatus } from './grpc-status.ts';

/** The faces that render an error, in their own format; `all` for errors any request can meet. */
export type Face = 'threads' | 'responses' | 'chat' | 'ces' | 'mcp' | 'ledger' | 'agents' | 'admin' | 'all';

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
  agent_deleted: {
    status: 422,
    grpc: 'FAILED_PRECONDITION',
    faces: ['threads', 'responses', 'ces'],
    meaning:
      'The agent of this conversation was deleted, so the conversation cannot take new input. Start a new conversation with an existing agent.',
  },
  agent_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp', 'agents'],
    meaning:
      'An agent with this name (CES: agentId) already exists in the app. Choose another name, or update the existing agent instead.',
  },
  agent_in_use: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning:
      "The agent is the app's rootAgent or a child agent of another agent, so it cannot be deleted. " +
      'Change those references first, or delete with force=true, which clears them.',
  },
  agent_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['threads', 'ces', 'mcp', 'agents'],
    meaning:
      'No agent with this name exists in the app. List the agents (GET /v1/agents, or the CES agents collection) and use one of their names.',
  },
  agent_version_mismatch: {
    status: 409,
    faces: ['agents'],
    meaning:
      'The agent is no longer at the expected_version of the update: another request changed it meanwhile. Read the agent again and reapply the change.',
  },
  agent_version_missing: {
    status: 500,
    faces: ['threads', 'responses', 'ces', 'ledger'],
    meaning:
      'Internal: the agent version a turn was started with is missing from the store. Report it with the request id, and start a new conversation meanwhile.',
  },
  api_key_expired: {
    status: 401,
    faces: ['all'],
    meaning:
      'The API key passed its expiry (set when it was created, or by a rotation whose grace period ended). ' +
      'Use the key that replaced it, or ask an app admin for a new one.',
  },
  api_key_not_found: {
    status: 404,
    faces: ['admin'],
    meaning: 'No API key with this id belongs to the app. List the keys with GET /v1/api-keys.',
  },
  api_key_revoked: {
    status: 401,
    faces: ['all'],
    meaning: 'The API key was revoked. Use another key of the app, or ask an app admin to create one.',
  },
  app_deleted: {
    status: 403,
    grpc: 'PERMISSION_DENIED',
    faces: ['ces', 'mcp', 'admin'],
    meaning: 'The app of the API key no longer exists, so the key can do nothing. Use a key of another app.',
  },
  app_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp', 'admin'],
    meaning:
      'An app with this name (CES: appId) already exists; app names are unique on the whole server. Choose another name.',
  },
  app_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces', 'mcp'],
    meaning:
      'No app with this resource name exists in the given project and location. List the apps of the location and check the name.',
  },
  approval_in_progress: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['ledger', 'mcp'],
    meaning:
      'Another decision on this approval is running its tool now; the tool runs once. Read the call again in a moment to see the outcome.',
  },
  approval_pending: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces'],
    meaning:
      'The session waits for a person to approve or deny tool calls, so it takes no new input yet. ' +
      'Decide each with POST /v1/tool-calls/{id}/decision; the session takes input again once its ' +
      'turn has finished.',
  },
  approval_required: {
    status: 409,
    faces: ['threads', 'ledger'],
    meaning:
      'The tool call waits for an approval, not for a result. Decide it with POST /v1/tool-calls/{id}/decision instead.',
  },
  approvals_pending: {
    status: 409,
    faces: ['threads', 'responses', 'chat'],
    meaning:
      'New input arrived while tool calls of the paused turn wait for a person to approve them. Decide ' +
      'them with POST /v1/tool-calls/{id}/decision first, then send the input (on the Responses face, ' +
      'with the outputs of the client calls of the same step).',
  },
  background_not_supported: {
    status: 400,
    faces: ['responses'],
    meaning:
      '`background: true` is not available over the Responses WebSocket, where every turn streams ' +
      'on the connection that asked for it. Use POST /v1/responses for background responses.',
  },
  background_requires_store: {
    status: 400,
    faces: ['responses'],
    meaning:
      '`background: true` needs `store: true`, so the response can be read while it runs. Set store to true, or drop background.',
  },
  bad_request: {
    status: 400,
    faces: ['all'],
    meaning:
      'The HTTP request was malformed before it reached the API (for example a bad URL or header). Fix the request as the message says.',
  },
  body_too_large: {
    status: 413,
    faces: ['all'],
    meaning:
      "The request body is larger than the server's limit (server.body_limit_bytes). Send a smaller body, or raise the limit in the server configuration.",
  },
  branch_has_open_calls: {
    status: 409,
    faces: ['responses'],
    meaning:
      'The earlier response this request continues from ends with tool calls that were answered only ' +
      'later in the conversation. Continue from a response where those calls have their outputs.',
  },
  concurrent_update: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['threads', 'responses', 'ces', 'mcp', 'ledger'],
    meaning:
      'Another request changed the same conversation, tool call or resource at the same time, and ' +
      'this one lost. Read the current state and retry if the change is still needed.',
  },
  conversation_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces'],
    meaning:
      'No conversation (session) with this id exists in the app. List the conversations of the app and check the id.',
  },
  conversation_running: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['threads', 'responses', 'ces', 'admin'],
    meaning:
      'The conversation is running a turn (in_progress), so it cannot be deleted now; the error names the turn. ' +
      'Wait for the turn to end or to pause for tool results, or cancel it (POST /v1/threads/{id}/cancel), then delete.',
  },
  deleting_own_app: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning:
      'An app cannot be deleted with an API key of that same app. Use an admin key of another app of the same project.',
  },
  duplicate_call_id: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'Two function_call items in the input share a call_id. Give every call of the replayed input its own call_id.',
  },
  duplicate_display_name: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp'],
    meaning:
      'Another toolset of the app already has this displayName; toolset display names are unique within an app. Choose another displayName.',
  },
  duplicate_field: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      'The request gives one field twice, by its JSON name and by its proto name (displayName and ' +
      'display_name). Both spellings are accepted; send the field once.',
  },
  duplicate_sort_key: {
    status: 500,
    faces: ['ces', 'mcp'],
    meaning:
      'Internal: two items of a list shared a sort key, so the page could not be cut reliably. Report it with the request id.',
  },
  duplicate_tool_name: {
    status: 400,
    faces: ['threads', 'responses', 'agents'],
    meaning: 'Two tools declared for the same request or agent share a name. Give every tool a unique name.',
  },
  duplicate_tool_output: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning: 'The input has two function_call_output items for the same call_id. Send exactly one output per call.',
  },
  duplicate_tool_response: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning: 'The request answers the same tool call twice in its toolResponses. Send one response per call.',
  },
  duplicate_tool_result: {
    status: 400,
    faces: ['threads', 'responses'],
    meaning: 'The message carries two results for the same tool call. Send exactly one result per call.',
  },
  empty_content: {
    status: 400,
    faces: ['threads'],
    meaning: 'The message has no content, or only blank text. Send the user message text (or other content blocks).',
  },
  empty_input: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'The request has no input: nothing to respond to or, for /v1/responses/compact, nothing to compact. Send a string or at least one input item.',
  },
  etag_mismatch: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['ces', 'mcp'],
    meaning:
      'The resource changed since the etag sent with the request was read. Read it again and reapply ' +
      'the change with the new etag (or send no etag to overwrite).',
  },
  headers_too_large: {
    status: 431,
    faces: ['all'],
    meaning:
      "The request's header fields are larger than Baton accepts (16 KiB in all). Send fewer or shorter headers, such as a shorter cookie or API key header.",
  },
  idempotency_key_in_use: {
    status: 409,
    faces: ['all'],
    meaning:
      'A request with the same Idempotency-Key is still being processed. Retry in a moment to get its stored response; ' +
      'if the server running it stopped, a retry runs it once its lease ends (Retry-After says when).',
  },
  idempotency_key_reused: {
    status: 422,
    faces: ['all'],
    meaning:
      'The Idempotency-Key was already used for a different request (another method, path or body). Use a new key for a new request.',
  },
  insufficient_role: {
    status: 403,
    grpc: 'PERMISSION_DENIED',
    faces: ['all'],
    meaning:
      "The API key's role does not allow this action: readers read, members also talk to agents and answer " +
      'calls, app admins also change the app (agents, tools, secrets, keys), operators manage every app. ' +
      'Use a key with the role the message names.',
  },
  internal_error: {
    status: 500,
    faces: ['all'],
    meaning:
      'Baton failed unexpectedly; the failure was logged with the request id. Retry later, and report it if it persists.',
  },
  interrupted: {
    status: 502,
    faces: ['responses'],
    meaning:
      'The server stopped while the turn was running, so the turn was failed when it came back. Send the input again.',
  },
  invalid_agent_name: {
    status: 400,
    faces: ['agents'],
    meaning: 'The agent name does not match `^[a-zA-Z0-9_-]{1,64}$`. Use 1 to 64 letters, digits, `_` or `-`.',
  },
  invalid_api_key: {
    status: 401,
    faces: ['all'],
    meaning:
      'The API key is unknown or was revoked. Check the key, or have an admin create a new one with POST /v1/api-keys.',
  },
  invalid_argument: {
    status: 400,
    faces: ['mcp'],
    meaning:
      "The arguments of a tools/call do not match the tool's inputSchema; the message names every offending field. Fix them as tools/list describes.",
  },
  invalid_arguments: {
    status: 400,
    faces: ['ledger'],
    meaning:
      "The edited arguments sent with an approval do not fit the tool's parameters schema. Fix them, " +
      'or approve without arguments to run the call as the model made it.',
  },
  invalid_authorization_header: {
    status: 401,
    faces: ['all'],
    meaning:
      'The Authorization header is not of the form `Bearer <api key>`. Send `Authorization: Bearer <key>`, or the key alone in `x-api-key`.',
  },
  invalid_body: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      'The body of the request is not a JSON object. Send the resource (or the request message) as a JSON object.',
  },
  invalid_compaction: {
    status: 400,
    faces: ['responses'],
    meaning:
      'A compaction item in the input was not produced by this server, or was altered. Send it back exactly as POST /v1/responses/compact returned it.',
  },
  invalid_cursor: {
    status: 400,
    faces: ['threads', 'responses', 'ledger', 'agents'],
    meaning:
      'The `after` cursor is not one this list returned. Pass the next_cursor of a previous page (on the Responses face, an item id of the list) unchanged.',
  },
  invalid_field: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      'A field of the resource has a value Baton cannot accept (a time zone, URL, duration, variable ' +
      'name, certificate…); the message and the field violation name it. Fix that field.',
  },
  invalid_filter: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      'The list filter is not valid AIP-160 syntax, or names a field the resource does not have. ' +
      'Fix the filter; the message lists the fields that can be filtered on.',
  },
  invalid_history_limit: {
    status: 400,
    faces: ['agents'],
    meaning: 'history_limit must be an integer of at least 2. Fix it in the agent definition.',
  },
  invalid_idempotency_key: {
    status: 400,
    faces: ['all'],
    meaning:
      'The Idempotency-Key header is empty or longer than 255 characters. Send a key of 1 to 255 characters, such as a UUID.',
  },
  invalid_input_policy: {
    status: 400,
    faces: ['agents'],
    meaning: 'input_policy must be `reject` or `queue`. Fix it in the agent definition.',
  },
  invalid_json: {
    status: 400,
    faces: ['all'],
    meaning:
      'The body (or a WebSocket message) is not valid JSON. Send a JSON object, with Content-Type: application/json over HTTP.',
  },
  invalid_jsonrpc_request: {
    status: 400,
    faces: ['mcp'],
    meaning:
      'The body posted to /mcp is not a JSON-RPC 2.0 message or batch. Send one such as {"jsonrpc":"2.0","id":1,"method":"tools/list"}.',
  },
  invalid_last_event_id: {
    status: 400,
    faces: ['ledger'],
    meaning:
      'The Last-Event-ID (header or last_event_id query parameter) is not an id this ledger event stream sent. Reconnect without it to start from now.',
  },
  invalid_max_steps: {
    status: 400,
    faces: ['agents'],
    meaning: 'max_steps must be an integer from 1 to 100. Fix it in the agent definition.',
  },
  invalid_media: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      'An image or blob input is not valid: its data is not base64, or an image has a mimeType that ' +
      'is not an image type. Send base64 bytes, and other files as blob.',
  },
  invalid_message: {
    status: 400,
    faces: ['responses'],
    meaning:
      'A Responses WebSocket message is not a JSON object. Send one JSON object per message, such as {"type":"response.create",…}.',
  },
  invalid_metrics_token: {
    status: 401,
    faces: ['all'],
    meaning:
      'GET /metrics was called without the metrics token (metrics.token or BATON_METRICS_TOKEN), or with another. ' +
      'Send `Authorization: Bearer <metrics token>`; API keys are not accepted there.',
  },
  invalid_model: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp', 'agents'],
    meaning:
      "The agent's model is missing or not one this server can use. Name a configured model such as `scripted:auto` or `openai:gpt-4o-mini`.",
  },
  invalid_openapi_schema: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      "The OpenAPI document of the tool or toolset cannot be used (it does not validate, or lacks the tool's operation). Fix the document; nothing was stored.",
  },
  invalid_order_by: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning:
      'orderBy is malformed or names a field the list cannot be sorted by. Use the fields the message lists, each optionally followed by `desc`.',
  },
  invalid_page_size: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning:
      'pageSize is not a non-negative whole number. Pass 0 (or omit it) for the default page size; larger values than the maximum are lowered to it.',
  },
  invalid_page_token: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning:
      'The pageToken was not issued by this server, or was altered. Pass the nextPageToken of a previous list response unchanged.',
  },
  invalid_page_token_secret: {
    status: 500,
    faces: ['ces', 'mcp'],
    meaning:
      'Internal: the key that seals page tokens is not 32 bytes, so the server does not start. No client should ever see it; report it.',
  },
  invalid_partial_results: {
    status: 400,
    faces: ['agents'],
    meaning:
      "partial_results must be `hold` (keep results sent for some of a paused turn's calls, answer 202) or " +
      '`reject` (refuse them with 400 missing_tool_results). Fix it in the agent definition.',
  },
  invalid_paused_response_status: {
    status: 400,
    faces: ['agents'],
    meaning:
      'paused_response_status must be `completed` (a response waiting for function_call outputs says ' +
      '`completed`, as on OpenAI) or `requires_action` (it says `requires_action`, as the Nodexa dialect). Fix it in the agent definition.',
  },
  invalid_provider_options: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp', 'agents'],
    meaning:
      "An agent's `provider_options` has an unknown provider namespace, an unknown option or a wrong value, or sets an option Baton " +
      'controls itself. The message names the field; docs/provider-options.md lists what each provider accepts.',
  },
  invalid_reference: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      'An agent refers to a tool, toolset or child agent that is malformed, repeated or not in the ' +
      'app, or has two client functions of the same name. Create the resource first, or fix the reference.',
  },
  invalid_request: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['all'],
    meaning:
      'The request body or query does not have the expected shape; the message and `param` name the first bad field. Fix that field.',
  },
  invalid_resource_id: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      'A resource id (appId, agentId, toolId, toolsetId, secretId) does not match `^[a-zA-Z0-9_-]{1,64}$`. ' +
      'Use letters, digits, `_` and `-`, or omit it to get a generated id.',
  },
  invalid_resource_name: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      'A resource name does not have the expected form, such as projects/{project}/locations/{location}/apps/{app}/tools/{tool}. ' +
      'Use the name as create or list returned it.',
  },
  invalid_retention: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp', 'agents'],
    meaning:
      "A retention duration (an agent's `retention.conversations_after_days` or `retention.tool_data_after_days`, an app's " +
      '`retention.conversationsAfterDays` or `retention.toolDataAfterDays`) is not a whole number of days from 1 to 3650. ' +
      'The message and `param` name the field; nothing was changed.',
  },
  invalid_role: {
    status: 400,
    faces: ['threads'],
    meaning: 'Role `tool` is only for messages of tool_result blocks. Send new input with role `user`.',
  },
  invalid_secret_reference: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      "A tool's credentials must name an existing secret of the same app (…/apps/{app}/secrets/{id}), " +
      'never a raw credential. Create the secret over REST, then put its name in the field.',
  },
  invalid_secret_value: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      'The secret value is not well-formed Unicode (it contains a lone surrogate). Send the value as valid text.',
  },
  invalid_session_id: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning: 'The session id in the URL is not 1 to 128 letters, digits, `-`, `_`, `.` or `~`. Use such an id.',
  },
  invalid_starting_after: {
    status: 400,
    faces: ['responses'],
    meaning:
      'starting_after (GET /v1/responses/{id}?stream=true) names a sequence_number past the last event ' +
      'of a finished response. Pass the sequence_number of the last event you received, or omit it to replay every event.',
  },
  invalid_timeout: {
    status: 400,
    faces: ['agents'],
    meaning:
      "tool_timeout_seconds (or a tool's timeout_seconds) is outside its range: a number of seconds " +
      'from 0.001 to 2592000 (30 days). Give one in range, or null for no deadline.',
  },
  invalid_timeout_policy: {
    status: 400,
    faces: ['agents'],
    meaning:
      'timeout_policy (of the agent or of a tool) must be `error_result`, `fail` or `cancel`. Fix it in the agent definition.',
  },
  invalid_tool_call_id: {
    status: 400,
    faces: ['threads', 'chat'],
    meaning:
      'A tool_result names a tool_call_id that is not a call of this thread waiting for a result. ' +
      'Use the exact ids from tool_calls[].id; pending_tool_call_ids lists the pending ones.',
  },
  invalid_tool_calls: {
    status: 502,
    faces: ['threads', 'responses'],
    meaning:
      'The model produced invalid tool calls several rounds in a row, so the turn was stopped. Check ' +
      "the descriptions and parameter schemas of the agent's tools.",
  },
  invalid_tool_executor: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['threads', 'responses', 'agents', 'ces', 'mcp'],
    meaning:
      'A tool sets max_attempts (CES: maxAttempts) without being a worker tool. Add "executor": "worker" (CES: ' +
      '"WORKER") to offer its calls to tool workers, or leave max_attempts out.',
  },
  invalid_tool_name: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['threads', 'responses', 'ces', 'mcp', 'agents'],
    meaning: 'A tool name does not match `^[a-zA-Z0-9_-]{1,64}$`. Use 1 to 64 letters, digits, `_` or `-`.',
  },
  invalid_tool_parameters: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['threads', 'responses', 'ces', 'mcp', 'agents'],
    meaning:
      'A tool\'s parameters are not a JSON Schema object for an object (`"type": "object"`), or do not compile. Fix the schema.',
  },
  invalid_tool_response_schema: {
    status: 400,
    faces: ['threads', 'agents', 'ces', 'mcp'],
    meaning:
      "A tool's response_schema is not a JSON Schema object, or does not compile, or a tool enforces a response " +
      'schema it does not have. Fix the schema, or leave it (and enforce_response_schema) out.',
  },
  invalid_tool_result: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['threads', 'responses', 'ces', 'ledger'],
    meaning:
      'The result does not match the response schema its tool enforces (enforce_response_schema): it must be JSON ' +
      "valid against the tool's response_schema. The message names the field and what is wrong; fix the result and " +
      'send it again (the call stays pending). A result sent with is_error is not checked.',
  },
  invalid_tool_schema: {
    status: 500,
    faces: ['mcp'],
    meaning:
      "Internal: the tool's own inputSchema does not compile, so its arguments cannot be checked. Report it; it is a server bug.",
  },
  invalid_update_mask: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning:
      'updateMask is malformed or names a field that cannot be updated. Name only mutable fields of the resource ' +
      '(camelCase, or their snake_case proto names), or `*` alone.',
  },
  invalid_value: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'An input content part is unusable: an image_url or file_url that is not a base64 data URL ' +
      'or an http(s) URL, file_data that is not base64, or a file with neither. Fix the part as the ' +
      'message says.',
  },
  invalid_webhook_url: {
    status: 400,
    faces: ['admin'],
    meaning:
      "A webhook endpoint's `url` is not an absolute http or https URL. Give the full address, such as https://hooks.example.com/baton.",
  },
  item_not_found: {
    status: 400,
    faces: ['responses'],
    meaning:
      "An item_reference names an item that does not exist in this app. Reference the ids of this app's response items (msg_…, rs_…, fc_…, fco_…).",
  },
  key_out_of_scope: {
    status: 403,
    grpc: 'PERMISSION_DENIED',
    faces: ['all'],
    meaning:
      'The key is a worker key, scoped to some tools: it may only claim, renew, release, read and answer their calls ' +
      "on /v1/tool-calls. Use the app's other keys for anything else, or mint a worker key whose tools include this " +
      'one.',
  },
  lease_lost: {
    status: 409,
    faces: ['ledger'],
    meaning:
      'The lease token does not hold the tool call any more: the lease lapsed (the worker missed its heartbeats), ' +
      'another worker claimed the call, or it was released. Drop the work: another worker owns the call now, and a ' +
      'result from this one would not be accepted.',
  },
  mcp_server_unavailable: {
    status: 503,
    grpc: 'UNAVAILABLE',
    faces: ['ces'],
    meaning:
      'The MCP server of the toolset did not answer, and no snapshot of its tools was pinned yet. Check the server address and the server, then retry.',
  },
  method_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces'],
    meaning:
      'The URL names a custom method the API does not have. Call toolsets/{toolset}:retrieveTools, or sessions/{session}:runSession or :streamRunSession.',
  },
  missing_api_key: {
    status: 401,
    faces: ['all'],
    meaning: 'The request carries no API key. Send `Authorization: Bearer <key>` or `x-api-key: <key>`.',
  },
  missing_model: {
    status: 400,
    faces: ['responses'],
    meaning:
      'A response that does not continue a previous one needs `model`. Name an agent of the app or a provider model such as `scripted:auto`.',
  },
  missing_resource_name: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'A required resource name (name or parent) is missing or empty. Send the full resource name.',
  },
  missing_tool_results: {
    status: 400,
    faces: ['threads', 'chat'],
    meaning:
      'The message answers only some of the pending tool calls. Send the results of all pending calls ' +
      'in one message, or submit them one at a time with POST /v1/tool-calls/{id}/result.',
  },
  mixed_content: {
    status: 400,
    faces: ['threads'],
    meaning:
      'A message carries tool_result blocks and user content together. Send the results in one message, then the new input in the next.',
  },
  model_error: {
    status: 502,
    faces: ['threads', 'responses', 'chat'],
    meaning:
      'The model provider failed or gave an unusable answer, so the turn failed; the input was saved. Send a new message to try again.',
  },
  model_mismatch: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'The request names another model than the conversation it continues; a conversation keeps its agent. Omit model, or start a new conversation.',
  },
  model_not_configured: {
    status: 502,
    faces: ['threads', 'responses'],
    meaning:
      "The agent's model names a provider this server has not configured, so the turn failed. Configure the provider, or change the agent's model.",
  },
  model_not_found: {
    status: 404,
    faces: ['responses', 'chat'],
    meaning:
      '`model` names neither an agent of the app nor a provider model this server can use. Name an ' +
      'agent (GET /v1/agents) or a model such as `openai:gpt-4o-mini`.',
  },
  no_input_items: {
    status: 500,
    faces: ['responses'],
    meaning: 'Internal: the accepted input of a response had no items to record. Report it with the request id.',
  },
  no_root_agent: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces'],
    meaning:
      "A new session needs an agent to start with, and the app has no rootAgent. Set the app's rootAgent, or pass config.entryAgent.",
  },
  not_a_client_tool_call: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      "A toolResponse answers a call that is not the client's: a server tool Baton runs itself, or " +
      "a call waiting for a person's approval. Send toolResponses only for the client function calls " +
      'of toolCalls outputs.',
  },
  not_an_approval: {
    status: 409,
    faces: ['ledger'],
    meaning:
      'The tool call does not wait for an approval, so it cannot be decided. Send its result with POST /v1/tool-calls/{id}/result.',
  },
  nothing_to_update: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      'The secret update changes nothing. Send secret.value and/or secret.displayName, or an updateMask naming them.',
  },
  openapi_document_too_complex: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      "The OpenAPI document of the tool or toolset expands past the server's limits once its $refs are resolved " +
      '(tools.openapi.max_refs, tools.openapi.max_depth), or reading it took longer than tools.openapi.timeout_seconds ' +
      'or more memory than a worker has. Simplify its schemas, or ask the operator to raise the limit; nothing was stored.',
  },
  openapi_document_too_large: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning:
      'The OpenAPI document of the tool or toolset is larger than the server accepts (tools.openapi.max_bytes). ' +
      'Send a smaller document, or ask the operator to raise the limit; nothing was stored.',
  },
  openapi_schema_invalid: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces'],
    meaning:
      'The stored OpenAPI document of the toolset no longer compiles, so its tools cannot be listed. Update the toolset with a valid document.',
  },
  openapi_workers_busy: {
    status: 503,
    grpc: 'UNAVAILABLE',
    faces: ['ces', 'mcp'],
    meaning:
      'Every worker that reads OpenAPI documents is busy (tools.openapi.workers), or the server is stopping, so the ' +
      'document of the tool or toolset could not be checked; nothing was stored. Send the request again shortly.',
  },
  origin_not_allowed: {
    status: 403,
    grpc: 'PERMISSION_DENIED',
    faces: ['mcp'],
    meaning:
      'The request to /mcp carries an Origin header that is neither a loopback origin nor listed in ' +
      'mcp.allowed_origins: a web page of another site may not use the MCP endpoint (DNS rebinding). ' +
      "Add the page's origin to mcp.allowed_origins, or call from a client that sends no Origin.",
  },
  page_token_mismatch: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning:
      'The pageToken was issued for a different request (parent, filter or orderBy changed). Repeat ' +
      'the parameters of the request that returned it, or omit pageToken to start again.',
  },
  previous_response_in_progress: {
    status: 409,
    faces: ['responses'],
    meaning:
      'The previous response is still running. Wait for it to finish (GET /v1/responses/{id}), then continue from it.',
  },
  previous_response_not_found: {
    status: 400,
    faces: ['responses'],
    meaning:
      'previous_response_id names no response this request may continue: unknown, deleted, or created ' +
      'with `store: false` on another connection. Use the id of a stored response.',
  },
  previous_response_not_latest: {
    status: 409,
    faces: ['responses'],
    meaning:
      'The previous response is not the latest of its conversation, and the latest waits for tool ' +
      'outputs. Continue from the latest response with those outputs, or cancel it first.',
  },
  rate_limited: {
    status: 429,
    grpc: 'RESOURCE_EXHAUSTED',
    faces: ['all'],
    meaning:
      'The app made more than limits.requests_per_minute_per_app requests in the current minute, or the server ' +
      'received more than limits.requests_per_minute_total. Retry after Retry-After seconds; the x-ratelimit-* ' +
      'headers show the limit, what is left and when it resets.',
  },
  referenced_secret_missing: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning:
      "A tool's or toolset's credentials name a secret the app does not have (an app secret name, or a Secret " +
      'Manager name projects/{p}/secrets/{id}/versions/{v}, read as the app secret {id}). Create the secret ' +
      'with POST …/apps/{app}/secrets?secretId={id}, then send the request again unchanged.',
  },
  repeated_query_parameter: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning: 'A query parameter was given more than once. Send each parameter once.',
  },
  request_timeout: {
    status: 408,
    faces: ['all'],
    meaning: 'The client did not send the whole request in time. Send it again.',
  },
  required_field: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces', 'mcp'],
    meaning: 'A required field is missing or empty; the message and the field violation name it. Set it.',
  },
  resource_in_use: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces', 'mcp'],
    meaning:
      'Agents of the app use the tool or toolset, so it cannot be deleted. Remove it from their tools ' +
      'or toolsets first, or delete with force=true, which removes those references.',
  },
  response_already_continued: {
    status: 409,
    faces: ['responses'],
    meaning:
      "The previous response's tool calls were already answered by another response, and a call is " +
      'answered once. Continue from the latest response of the conversation.',
  },
  response_missing: {
    status: 500,
    faces: ['responses'],
    meaning: 'Internal: the response was not recorded although its input was accepted. Report it with the request id.',
  },
  response_not_cancellable: {
    status: 409,
    faces: ['responses'],
    meaning:
      'The response is neither running nor waiting for tool outputs, so there is nothing to cancel. No action is needed; read it with GET /v1/responses/{id}.',
  },
  response_not_found: {
    status: 404,
    faces: ['responses'],
    meaning:
      'No stored response with this id exists in the app. Check the id; responses created with `store: false` cannot be read back.',
  },
  retrieve_tools_unavailable: {
    status: 501,
    grpc: 'UNIMPLEMENTED',
    faces: ['ces'],
    meaning:
      "This server runs without its toolset executor (a test setup), so it cannot list a toolset's tools. Use a normally started server.",
  },
  route_not_found: {
    status: 404,
    faces: ['all'],
    meaning: "No endpoint matches this method and path. Check the URL against Baton's endpoints in the README.",
  },
  secret_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces'],
    meaning:
      'A secret with this secretId already exists in the app. Choose another secretId, or change its value with PATCH.',
  },
  secret_in_use: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces'],
    meaning:
      'Tools or toolsets of the app use the secret in their apiAuthentication, so it cannot be deleted. Point them at another secret, or delete them, first.',
  },
  secret_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces'],
    meaning: "No secret with this name exists in the app. List the app's secrets and check the name.",
  },
  secret_too_large: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning: 'The secret value is larger than 64 KiB in UTF-8. Store a smaller value.',
  },
  secret_unreadable: {
    status: 500,
    grpc: 'INTERNAL',
    faces: ['ces'],
    meaning:
      "A secret a tool refers to cannot be decrypted with the server's secrets key; it shows only " +
      "in that tool's error result. Restore the key the secret was stored with, or set the secret's " +
      'value again.',
  },
  server_closing: {
    status: 503,
    faces: ['responses'],
    meaning: 'The server is shutting down and accepts no new WebSocket connections. Reconnect shortly.',
  },
  server_executed_call: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'A function_call_output answers a call Baton executes itself (a server tool, or a call waiting ' +
      'for approval), which needs no output. Send function_call_output only for function_call items.',
  },
  server_tools_unavailable: {
    status: 503,
    grpc: 'UNAVAILABLE',
    faces: ['threads', 'responses', 'chat', 'ces', 'mcp', 'ledger'],
    meaning:
      "The server tools of one of the agent's toolsets could not be prepared now: the workers that read OpenAPI " +
      'documents are busy or restarting (tools.openapi.workers). Nothing was written; send the request again shortly.',
  },
  session_busy: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['ces'],
    meaning:
      'The session is running a turn for another request, or another request started it at the same time. Retry when that turn has finished.',
  },
  session_ended: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces'],
    meaning: 'The session has ended (its agent called end_session) and takes no more input. Start a new session id.',
  },
  session_name_mismatch: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning: 'config.session is not the session named in the URL. Send the same session resource name in both.',
  },
  stream_required: {
    status: 400,
    faces: ['responses'],
    meaning:
      'Every turn on the Responses WebSocket streams its events, so `stream: false` is refused. Omit ' +
      'stream, or use POST /v1/responses for a single JSON response.',
  },
  thread_busy: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['threads', 'responses', 'chat', 'ces'],
    meaning:
      "The conversation is running a turn, so it cannot take new input now. Wait for that turn's response, or cancel it first.",
  },
  thread_not_active: {
    status: 409,
    faces: ['threads', 'responses'],
    meaning:
      'No turn of the conversation is running or waiting for tool results, so there is nothing to cancel. No action is needed.',
  },
  thread_not_found: {
    status: 404,
    faces: ['threads', 'responses', 'ces', 'ledger'],
    meaning:
      'No conversation with this id exists in the app (threads, Responses conversations and CES sessions share these ids). Check the id.',
  },
  thread_not_pending: {
    status: 409,
    grpc: 'FAILED_PRECONDITION',
    faces: ['threads', 'responses', 'ces'],
    meaning:
      'Tool results arrived while the conversation waits for none (nothing is pending, or another ' +
      "request answered first). Read the conversation's state before sending results.",
  },
  too_many_failed_auth: {
    status: 429,
    grpc: 'RESOURCE_EXHAUSTED',
    faces: ['all'],
    meaning:
      'Too many requests with a missing or invalid API key came from this address within a minute ' +
      '(limits.failed_auth_per_minute_per_address). Fix the key; a request with a valid key is never refused ' +
      'for this. Retry-After says when failed attempts are counted afresh.',
  },
  too_many_streams: {
    status: 429,
    grpc: 'RESOURCE_EXHAUSTED',
    faces: ['threads', 'responses', 'ces', 'ledger'],
    meaning:
      'The app already has limits.streams_per_app streams open (ledger event streams, streamed runs and ' +
      'responses, Responses WebSocket connections), or the server has limits.streams_total. Close a stream, ' +
      'or retry after Retry-After seconds.',
  },
  too_many_tools: {
    status: 400,
    faces: ['threads', 'responses', 'agents'],
    meaning: 'More than 128 tools are declared for one request or agent. Declare at most 128.',
  },
  too_many_turns: {
    status: 429,
    grpc: 'RESOURCE_EXHAUSTED',
    faces: ['threads', 'responses', 'ces'],
    meaning:
      'The app already has limits.turns_per_app turns running in this server process, or the server has ' +
      'limits.turns_total. Nothing was written: retry after Retry-After seconds.',
  },
  tool_call_already_resolved: {
    status: 409,
    grpc: 'FAILED_PRECONDITION',
    faces: ['threads', 'responses', 'ces', 'ledger'],
    meaning:
      'The tool call was already answered, decided, expired or cancelled; a result or decision cannot ' +
      'be sent twice or changed. Read the call (GET /v1/tool-calls/{id}) for its outcome.',
  },
  tool_call_expired: {
    status: 502,
    faces: ['responses'],
    meaning:
      'A tool call passed its deadline, and its timeout policy `fail` failed the turn. Send the input again, or give the tool more time (timeout_seconds).',
  },
  tool_call_id_required: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      'A toolResponse without an id matches no pending call, or several calls of the same tool. Echo the id of the toolCall it answers.',
  },
  tool_call_leased: {
    status: 409,
    faces: ['threads', 'ledger', 'responses', 'ces'],
    meaning:
      'A tool worker holds a live lease on this call and is running it: only its result (sent with the lease token) ' +
      'is accepted until the lease ends. Wait for the result, or for the lease to lapse.',
  },
  tool_call_not_found: {
    status: 404,
    faces: ['ces', 'ledger'],
    meaning: 'No tool call with this id exists in the app. List the calls with GET /v1/tool-calls and use their ids.',
  },
  tool_call_not_pending: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces'],
    meaning:
      'The tool call a toolResponse answers is no longer pending (answered, expired or cancelled). Do not send its response again.',
  },
  tool_call_without_output: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'A function_call has no function_call_output: in the replayed input, or among the outputs for ' +
      'the calls the previous response waits for. Send an output for every call.',
  },
  tool_calls_pending: {
    status: 409,
    grpc: 'FAILED_PRECONDITION',
    faces: ['threads', 'responses', 'ces'],
    meaning:
      'New input arrived while the conversation waits for the results of its pending tool calls. ' +
      'Send the results (all of a parallel set in one message) or cancel the turn first.',
  },
  tool_definition_not_found: {
    status: 404,
    faces: ['ledger'],
    meaning:
      'The tool of this call is no longer defined for its agent, so its schema cannot be shown. Answer the call with any JSON result.',
  },
  tool_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp'],
    meaning:
      'A tool with this toolId already exists in the app. Choose another toolId, or update the existing tool with PATCH.',
  },
  tool_gone: {
    status: 422,
    faces: ['ledger'],
    meaning:
      'The tool of this approval no longer exists, so the call cannot be approved and run. Deny the call instead.',
  },
  tool_mismatch: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      'A toolResponse names another tool or displayName than the call it answers. Echo the tool and displayName of the toolCall.',
  },
  tool_not_for_workers: {
    status: 400,
    faces: ['ledger'],
    meaning:
      'A tool named in a claim exists, but its calls are answered by the client, not by workers. Mark the tool with ' +
      '"executor": "worker" (CES clientFunction: "executor": "WORKER") to offer its calls to workers.',
  },
  tool_not_found: {
    status: 404,
    faces: ['ces', 'mcp'],
    meaning:
      'No tool with this name exists: a tool resource of the app, or a tool of the MCP server. List ' +
      'the tools (the tools collection, or tools/list) and use one of their names.',
  },
  tool_output_not_string: {
    status: 400,
    faces: ['responses'],
    meaning:
      "A function_call_output's `output` is a JSON object, number, boolean or null; it must be a " +
      'string (or an array of input_text/input_image/input_file parts). Serialize the result first: ' +
      '`JSON.stringify(result)` (JavaScript), `json.dumps(result)` (Python).',
  },
  tool_output_without_call: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'A function_call_output answers a call_id that is neither a function_call of the input nor ' +
      'a call of the conversation waiting for output. Use the call_id of a function_call.',
  },
  tool_responses_pending: {
    status: 400,
    grpc: 'FAILED_PRECONDITION',
    faces: ['ces'],
    meaning:
      'The session waits for the responses to its tool calls, so it takes no other input first. Send ' +
      'them as toolResponses (same id, tool and displayName); text may come in the same request once ' +
      'every pending call is answered.',
  },
  toolset_exists: {
    status: 409,
    grpc: 'ALREADY_EXISTS',
    faces: ['ces', 'mcp'],
    meaning:
      'A toolset with this toolsetId already exists in the app. Choose another toolsetId, or update the existing toolset with PATCH.',
  },
  toolset_not_found: {
    status: 404,
    grpc: 'NOT_FOUND',
    faces: ['ces', 'mcp'],
    meaning: "No toolset with this name exists in the app. List the app's toolsets and check the name.",
  },
  turn_cancelled: {
    status: 409,
    grpc: 'ABORTED',
    faces: ['chat', 'ces'],
    meaning:
      "The turn was cancelled (for example with POST /v1/threads/{id}/cancel) or ended by a tool call's deadline before it finished. Send the input again.",
  },
  turn_failed: {
    status: 503,
    grpc: 'UNAVAILABLE',
    faces: ['ces'],
    meaning:
      "The agent's turn failed, for example because the model call failed; the message says why. Send the input again.",
  },
  turn_not_found: {
    status: 404,
    faces: ['ledger'],
    meaning:
      'The turn this tool call belongs to was not found in the app. Check the call id; if the call itself is still listed, report it with the request id.',
  },
  unexpected_function_call: {
    status: 400,
    faces: ['responses'],
    meaning:
      'A request continuing a paused response carries a function_call item, but the calls are already ' +
      'in the conversation. Send only function_call_output items and messages.',
  },
  unexpected_queue: {
    status: 500,
    faces: ['ces'],
    meaning: 'Internal: session input was queued, which sessions never allow. Report it with the request id.',
  },
  union_conflict: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning:
      'The request sets more than one member of a oneof (for example both clientFunction and openApiTool). Set exactly one.',
  },
  union_missing: {
    status: 400,
    faces: ['ces', 'mcp'],
    meaning: 'The request sets no member of a required oneof. Set exactly one of the members the message lists.',
  },
  unknown_agent: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      "config.entryAgent (or the app's rootAgent) does not name an agent of this app. Use the resource name of one of the app's agents.",
  },
  unknown_allowed_tool: {
    status: 400,
    faces: ['threads', 'responses'],
    meaning:
      'tool_choice.tools names a tool this request does not have. Name only tools of the agent or of the request; the message lists them.',
  },
  unknown_message_type: {
    status: 400,
    faces: ['responses'],
    meaning:
      'A Responses WebSocket message has a type other than response.create, the only message a client sends. Send {"type":"response.create",…}.',
  },
  unknown_parameter: {
    status: 400,
    faces: ['all'],
    meaning:
      'The body or query has a field the endpoint does not know; `param` names it. Remove it or fix its spelling.',
  },
  unknown_query_parameter: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning: 'The method does not take this query parameter. Use only the parameters the message lists.',
  },
  unknown_tool_call: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      'A toolResponse names a call id that is not a tool call of this session (a new session has none). Use the ids of toolCalls outputs.',
  },
  unknown_tool_choice: {
    status: 400,
    faces: ['threads', 'responses'],
    meaning:
      'tool_choice names a tool this request does not have. Name a tool of the agent or of the request; the message lists them.',
  },
  unknown_tool_id: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['ces'],
    meaning:
      'A toolIds entry names no tool of the toolset. Use the ids the message lists, or send no toolIds to get every tool.',
  },
  unknown_webhook_event_type: {
    status: 400,
    faces: ['admin'],
    meaning:
      'An entry of `event_types` is not an event Baton sends. Use tool_call.pending, tool_call.resolved, turn.completed, turn.failed, ' +
      'turn.requires_action, response.completed, response.failed, endpoint.disabled, or ["*"] for all.',
  },
  unknown_worker_tool: {
    status: 400,
    faces: ['ledger'],
    meaning:
      "A tool named in a claim is no tool of the app's agents or tool resources. Check the name against the agents' tools (GET /v1/agents).",
  },
  unsupported_field: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['chat', 'ces', 'mcp'],
    meaning:
      'The request sets a CES field Baton does not implement (such as historicalContexts, or a Google ' +
      'Cloud-only authentication). Leave it out; the message says what to use instead.',
  },
  unsupported_file_id: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'A content part uses file_id, but Baton has no Files API. Send the file inline (a base64 data URL or file_data) or by URL.',
  },
  unsupported_input: {
    status: 400,
    grpc: 'INVALID_ARGUMENT',
    faces: ['chat', 'ces'],
    meaning:
      'A session input is dtmf or audio, which Baton does not support. Send text, event, image, blob, variables or toolResponses.',
  },
  unsupported_media_type: {
    status: 415,
    faces: ['all'],
    meaning: 'The body is not sent as JSON. Send it with Content-Type: application/json.',
  },
  unsupported_tool_type: {
    status: 400,
    faces: ['responses', 'chat'],
    meaning:
      'A tool in `tools` is not a function tool; server-side tools are configured on the agent. Send only {"type":"function",…} tools.',
  },
  uri_too_long: {
    status: 414,
    faces: ['all'],
    meaning:
      'The URL is longer than Baton accepts (8 KiB), or one of its path segments (an id) is longer ' +
      'than 100 characters. Check the URL; send large data in the body instead.',
  },
  webhook_delivery_in_flight: {
    status: 409,
    faces: ['admin'],
    meaning:
      'The delivery is being sent right now, so it cannot be resent: read its outcome in the deliveries list a moment later, ' +
      'and resend it once it has failed or succeeded.',
  },
  webhook_delivery_not_found: {
    status: 404,
    faces: ['admin'],
    meaning:
      'No delivery with this id belongs to this webhook endpoint of your app. List them with GET /v1/webhook-endpoints/{id}/deliveries.',
  },
  webhook_endpoint_not_found: {
    status: 404,
    faces: ['admin'],
    meaning: 'No webhook endpoint with this id exists in your app. List them with GET /v1/webhook-endpoints.',
  },
  webhook_url_not_allowed: {
    status: 422,
    faces: ['admin'],
    meaning:
      "A webhook endpoint's `url` names (or resolves to) a loopback, private, link-local or metadata address, which the egress guard refuses. " +
      'Use a public address, or have the operator allow it in `egress.allow` (BATON_EGRESS_ALLOW).',
  },
  websocket_connection_limit_reached: {
    status: 400,
    faces: ['responses'],
    meaning:
      'The Responses WebSocket connection reached its time limit and is being closed. Open a new connection; responses with `store: false` do not carry over.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}
