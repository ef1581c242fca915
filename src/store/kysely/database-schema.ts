import type { ColumnType, Generated } from 'kysely';

/**
 * Kysely typings of the tables created by `migrations/`. Columns are
 * snake_case; the repos map them to the camelCase records explicitly.
 *
 * JSON values live in `text` columns and booleans in `integer` 0/1 columns so that SQLite
 * and Postgres hand back identical JS values and the repos need no dialect branches.
 */

/**
 * A generated 64-bit key. SQLite returns a number, node-postgres a string and PGlite a
 * number or bigint, so readers must go through `Number()`. Never written by the repos.
 */
export type GeneratedInt8 = ColumnType<number | string | bigint, never, never>;

/** A 64-bit integer the repos write (a copied `seq`); read back through `Number()` like `GeneratedInt8`. */
export type Int8 = ColumnType<number | string | bigint, number, number>;

export interface AppsTable {
  id: string;
  name: string;
  project: string;
  location: string;
  /** JSON object of CES App settings. */
  settings: string;
  revision: number;
  created_at: string;
  updated_at: string | null;
  /** When the app was deleted (migration 0014): a tombstone whose rows the purge is removing. */
  deleted_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** The key id that deleted it. */
  deleted_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its name before deletion (`name` is then `deleted:{id}`, freeing the name). */
  deleted_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON of the purge's running totals (`PurgeProgress` in app-purge.ts), or null before its first batch. */
  purge_progress: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AppResourcesTable {
  app_id: string;
  collection: string;
  id: string;
  /** JSON object: the resource body. */
  body: string;
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface SecretsTable {
  app_id: string;
  id: string;
  display_name: string | null;
  ciphertext: string;
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface CesSessionsTable {
  app_id: string;
  id: string;
  conversation_id: string;
  /** 0 or 1. */
  ended: number;
  /** JSON object. */
  variables: string;
  turn_count: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  app_id: string;
  name: string | null;
  key_hash: string;
  prefix: string;
  role: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  /** JSON array of the tools a worker key is restricted to, or null (migration 0011). */
  tool_scope: string | null;
}

export interface AgentsTable {
  id: string;
  app_id: string;
  name: string;
  version: number;
  /** JSON of `AgentDefinition`. */
  definition: string;
  created_at: string;
  updated_at: string;
}

export interface AgentVersionsTable {
  agent_id: string;
  version: number;
  /** JSON of `AgentDefinition`. */
  definition: string;
  created_at: string;
}

export interface ConversationsTable {
  id: string;
  app_id: string;
  agent_id: string;
  agent_name: string;
  version: number;
  active_turn_id: string | null;
  head_turn_id: string | null;
  /** JSON object of string values. */
  metadata: string;
  created_at: string;
  updated_at: string;
}

export interface TurnsTable {
  id: string;
  app_id: string;
  conversation_id: string;
  agent_id: string;
  agent_version: number;
  status: string;
  /** JSON of `TurnOptions`. */
  options: string;
  finish_reason: string | null;
  /** JSON of `TurnError`, or null. */
  error: string | null;
  step_count: number;
  /** JSON of `TurnUsage`. */
  usage: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** The run holding the turn's lease (migration 0009); null on rows older than it. */
  lease_token: string | null;
  takeovers: number;
  request_key: string | null;
}

export interface ServerCallClaimsTable {
  /** The call's ledger id. */
  id: string;
  app_id: string;
  turn_id: string;
  /** JSON of the pending `LedgerEntryRecord` the step would have committed. */
  entry: string;
  claimed_at: string;
}

export interface ItemsTable {
  seq: GeneratedInt8;
  id: string;
  conversation_id: string;
  turn_id: string;
  group_id: string;
  /** Copy of `payload.type`, so queries can filter without parsing JSON. */
  type: string;
  /** JSON of `ItemPayload`. */
  payload: string;
  created_at: string;
}

export interface LedgerEntriesTable {
  id: string;
  app_id: string;
  conversation_id: string;
  turn_id: string;
  agent_name: string;
  tool_name: string;
  kind: string;
  /** JSON of the call arguments. */
  arguments: string;
  arguments_hash: string;
  call_index: number;
  state: string;
  deadline_at: string | null;
  timeout_policy: string;
  /** JSON of `ContentPart[]`, or null while pending. */
  result: string | null;
  /** 0 or 1. */
  is_error: number;
  submitted_by: string | null;
  submitted_at: string | null;
  idempotency_key: string | null;
  created_at: string;
  updated_at: string;
  /** The W3C traceparent of the run that paused on the call, when tracing was on. */
  trace_context: string | null;
  /** `client`, or `worker` for calls offered to tool workers (migration 0011). */
  executor: Generated<string>;
  attempts: Generated<number>;
  max_attempts: number | null;
  lease_token: string | null;
  lease_holder: string | null;
  lease_key_id: string | null;
  leased_at: string | null;
  lease_expires_at: string | null;
  /** When a retention policy removed the call's arguments and result (migration 0013). */
  tool_data_removed_at: string | null;
}

export interface IdempotencyKeysTable {
  app_id: string;
  key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  /** The server process holding an in-progress key (null on rows older than leases). */
  owner: string | null;
  /** When an in-progress key's lease ends unless renewed (null on rows older than leases). */
  lease_expires_at: string | null;
}

/**
 * A conversation a key's stored response names (migration 0015): deleting the conversation deletes
 * the key through these rows, written when the key completes.
 */
export interface IdempotencyKeyConversationsTable {
  app_id: string;
  key: string;
  conversation_id: string;
}

export interface QueuedInputsTable {
  /** Insertion order; `created_at` alone cannot order two inputs queued in the same millisecond. */
  seq: GeneratedInt8;
  id: string;
  app_id: string;
  conversation_id: string;
  /** JSON of `ContentPart[]`. */
  content: string;
  /** JSON of `TurnOptions`. */
  options: string;
  created_at: string;
}

export interface ResponsesTable {
  id: string;
  app_id: string;
  conversation_id: string;
  turn_id: string;
  previous_response_id: string | null;
  /** `seq` of the response's first and last input item. */
  input_first_seq: Int8;
  input_last_seq: Int8;
  /** JSON of `TurnUsage`. */
  usage_before: string;
  /** JSON object, face-owned. */
  echo: string;
  /** 0 or 1. */
  stored: number;
  /** 0 or 1. */
  owns_conversation: number;
  created_at: string;
}

/** Deletions, exports, retention runs and purges, per app (migration 0013; no foreign key: it outlives its app). */
export interface AuditEventsTable {
  id: string;
  app_id: string;
  /** The key id that acted, or `baton:retention` for the retention job. */
  actor: string | null;
  action: string;
  target: string | null;
  /** JSON object of row counts by table. */
  counts: string;
  /** JSON object. */
  details: string;
  created_at: string;
}

/** Webhook endpoints of an app (migration 0012); JSON arrays in text, booleans 0/1. */
export interface WebhookEndpointsTable {
  id: string;
  app_id: string;
  url: string;
  description: string | null;
  event_types: string;
  agents: string | null;
  tools: string | null;
  include_arguments: number;
  enabled: number;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** The webhook outbox (migration 0012). */
export interface WebhookEventsTable {
  seq: GeneratedInt8;
  id: string;
  app_id: string;
  type: string;
  conversation_id: string | null;
  agent_name: string | null;
  tool_name: string | null;
  /** JSON object: the event's payload data. */
  data: string;
  /** 0 until the delivery worker wrote the event's deliveries. */
  fanned_out: Generated<number>;
  created_at: string;
}

/** One event to one endpoint (migration 0012). */
export interface WebhookDeliveriesTable {
  id: string;
  app_id: string;
  endpoint_id: string;
  event_id: string;
  event_seq: Int8;
  event_type: string;
  conversation_id: string | null;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  claim_token: string | null;
  last_attempt_at: string | null;
  last_response_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface Database {
  apps: AppsTable;
  api_keys: ApiKeysTable;
  agents: AgentsTable;
  agent_versions: AgentVersionsTable;
  conversations: ConversationsTable;
  turns: TurnsTable;
  items: ItemsTable;
  ledger_entries: LedgerEntriesTable;
  server_call_claims: ServerCallClaimsTable;
  idempotency_keys: IdempotencyKeysTable;
  idempotency_key_conversations: IdempotencyKeyConversationsTable;
  queued_inputs: QueuedInputsTable;
  responses: ResponsesTable;
  app_resources: AppResourcesTable;
  secrets: SecretsTable;
  ces_sessions: CesSessionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  audit_events: AuditEventsTable;
}
