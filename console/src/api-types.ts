/** The wire shapes the console reads. Only the fields it uses are typed; the server may send more. */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type CallKind = 'client' | 'approval' | 'client_async' | 'server';
export type CallState = 'pending' | 'completed' | 'failed' | 'denied' | 'expired' | 'cancelled';

/** Who holds a worker call, as the ledger shows it: the lease token stays with the worker. */
export interface WorkerLease {
  /** The worker's own label, or its key id when it gave none. */
  holder: string;
  key_id: string;
  claimed_at: string;
  expires_at: string;
}

export interface ToolCall {
  object: 'tool_call';
  id: string;
  type: 'function';
  name: string;
  input: JsonValue;
  arguments_hash: string;
  kind: CallKind;
  state: CallState;
  thread_id: string;
  turn_id: string;
  agent: string;
  deadline_at: string | null;
  timeout_policy: string;
  result: { content: unknown; is_error: boolean } | null;
  submitted_by: string | null;
  submitted_at: string | null;
  created_at: string;
  updated_at: string;
  /**
   * `worker` when a fleet of tool workers claims the call under leases (docs/tool-workers.md).
   * Optional because a server older than tool workers leaves it out: such calls are the client's.
   */
  executor?: 'client' | 'worker';
  /** Worker calls only: leases taken so far, and how many may lapse before the deadline policy applies. */
  attempts?: number;
  max_attempts?: number;
  /** Worker calls only: the current lease, null while no worker holds the call. */
  lease?: WorkerLease | null;
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface Principal {
  object: 'principal';
  app: { id: string; name: string; project: string; location: string; resource_name: string };
  key: { id: string; role: string };
}

export interface Thread {
  id: string;
  object: 'thread';
  agent: string;
  status: 'idle' | 'running' | 'pending';
  pending_tool_calls: { id: string; name: string; input: JsonValue; kind?: 'approval'; deadline_at: string | null }[];
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface MessageToolCall {
  id: string;
  name: string;
  input: JsonValue;
  /** Absent for client-executed calls; `server` or `fake` when Baton ran the tool itself. */
  executor?: string;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_call_id: string;
  content: unknown;
  is_error?: boolean;
  synthetic?: boolean;
}

export interface ThreadMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  content: string | null | { type: string; [key: string]: unknown }[];
  tool_calls?: MessageToolCall[];
  turn_id: string;
  created_at: string;
}

/** The reply in `{tool_call, resumed, response}`: a thread message as POST /v1/threads/{id}/messages returns it. */
export interface MessageResponse {
  id: string;
  thread_id: string;
  choices: {
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; name: string; input: JsonValue; kind?: string }[];
    };
    finish_reason: string;
  }[];
}

export interface AnswerOutcome {
  tool_call: ToolCall;
  resumed: boolean;
  response: MessageResponse | null;
}

export interface ToolDefinition {
  object: 'tool_definition';
  name: string;
  description: string;
  parameters: JsonSchema | null;
  response_schema: JsonSchema | null;
  executor: 'client' | 'server';
}

/** The subset of JSON Schema (and Google's upper-case OpenAPI flavour) the generated form understands. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: JsonValue[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  default?: JsonValue;
  format?: string;
}

export interface AgentSummary {
  object: 'agent';
  name: string;
  version: number;
  model: string;
  description: string | null;
  instructions?: string;
  tools: { name: string; description?: string }[];
  updated_at: string;
}

/** A CES Tool or Toolset resource; which member is set says its kind. */
export interface CesResource {
  name: string;
  displayName?: string;
  description?: string;
  requireApproval?: boolean;
  executionType?: string;
  clientFunction?: { name?: string; description?: string };
  openApiTool?: { name?: string; description?: string };
  jsFunction?: { name?: string; description?: string };
  mcpToolset?: { serverAddress?: string };
  openApiToolset?: { url?: string };
  updateTime?: string;
}

/** A webhook endpoint (GET /v1/webhook-endpoints): never with its secret. */
export interface WebhookEndpoint {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  description: string | null;
  /** Event types, or `['*']` for every one. */
  event_types: string[];
  /** Only events of these agents; null for every agent. */
  agents: string[] | null;
  /** Only call events of these tools; null for every tool. */
  tools: string[] | null;
  include_arguments: boolean;
  enabled: boolean;
  /** Why Baton disabled the endpoint (its deliveries kept failing); null when it did not. */
  disabled_reason: string | null;
  failing_since: string | null;
  /** While a rotated-out secret still signs deliveries beside the new one, until when. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An endpoint as creation and rotation answer: the signing secret, shown this once. */
export interface IssuedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

export interface WebhookEndpointCreate {
  url: string;
  description?: string;
  event_types: string[];
  agents?: string[];
  tools?: string[];
  include_arguments: boolean;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event's delivery to one endpoint (GET /v1/webhook-endpoints/{id}/deliveries). */
export interface WebhookDelivery {
  object: 'webhook_delivery';
  id: string;
  endpoint_id: string;
  /** Also the `webhook-id` header, the same on every attempt. */
  event_id: string;
  event_type: string;
  sequence: number;
  thread_id: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_code: number | null;
  /** A short excerpt of the last answer or error; bodies are never stored whole. */
  last_error: string | null;
  created_at: string;
}
