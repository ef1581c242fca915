import type { ContentBlock, JsonValue, TimeoutPolicy, ToolCallKind, ToolCallState } from './common.ts';
import type { MessageResponse } from './threads.ts';

/** The ledger (`/v1/tool-calls`): every call as a record with its state. Mirrors src/faces/ledger. */

export interface LedgerEntry {
  object: string;
  id: string;
  type: string;
  name: string;
  input: JsonValue;
  arguments_hash: string;
  kind: ToolCallKind;
  state: ToolCallState;
  thread_id: string;
  turn_id: string;
  agent: string;
  deadline_at: string | null;
  timeout_policy: TimeoutPolicy;
  result: { content: string | ContentBlock[]; is_error: boolean } | null;
  submitted_by: string | null;
  submitted_at: string | null;
  created_at: string;
  updated_at: string;
  /** Who answers the call: the conversation's caller (`client`), or a tool worker (`worker`). */
  executor: 'client' | 'worker';
  /** Worker calls: how many leases were taken on the call (a release does not count). */
  attempts?: number;
  /** Worker calls: how many leases may lapse before the call resolves per its deadline policy. */
  max_attempts?: number;
  /** Worker calls: the live lease, or null when none holds the call. */
  lease?: ToolCallLease | null;
}

/** A worker's hold on a call. The `token` is only in the answers of a claim or a renewal: it is the holder's secret. */
export interface ToolCallLease {
  token?: string;
  /** The worker label given at claim (default: the key id). */
  holder: string;
  key_id: string;
  claimed_at: string;
  expires_at: string;
}

/** The answer to a result or a decision: the row, and the turn's reply when this answer resumed it. */
export interface ToolCallResolution {
  tool_call: LedgerEntry;
  resumed: boolean;
  response: MessageResponse | null;
}

export interface ListToolCallsQuery {
  state?: ToolCallState;
  agent?: string;
  threadId?: string;
  tool?: string;
  /** Only calls created before this ISO 8601 time. */
  createdBefore?: string;
  limit?: number;
  after?: string;
}

/** The tool a call was made to (`GET /v1/tool-calls/{id}/tool`): what an answer form is built from. */
export interface CallToolDefinition {
  object: string;
  call_id: string;
  kind: ToolCallKind;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** For client functions that declare it: the JSON Schema of the answer they expect. */
  response_schema: Record<string, unknown> | null;
  executor: 'server' | 'client' | 'worker';
}

export interface SubmitResultBody {
  content?: string | Record<string, unknown>[];
  is_error?: boolean;
  /** A worker's lease: the result is accepted only while this token holds the call (fencing). */
  lease_token?: string;
}

/** `POST /v1/tool-calls/claim`, as sent on the wire. */
export interface ClaimToolCallsBody {
  /** 1–64 names of tools marked `"executor": "worker"`. */
  tools: string[];
  /** Only calls made by these agents. */
  agents?: string[];
  /** 1–100, default 1. */
  max_calls?: number;
  /** 5–3600, default 60. */
  lease_seconds?: number;
  /** 0–60, default 0: how long to wait for a call when none is pending. */
  wait_seconds?: number;
  /** A label for the worker, shown in the console (default: the key id). */
  worker?: string;
}

/** `POST /v1/tool-calls/{id}/lease`: a heartbeat, extending the lease from now. */
export interface RenewLeaseBody {
  lease_token: string;
  lease_seconds?: number;
}

/** `POST /v1/tool-calls/{id}/release`: gives an unstarted claim back. */
export interface ReleaseLeaseBody {
  lease_token: string;
}

/** A person's decision on an approval; `arguments` replaces the model's (checked against the tool's schema). */
export interface ApprovalDecision {
  approve: boolean;
  reason?: string;
  arguments?: Record<string, unknown>;
}

/** An event of `GET /v1/tool-calls/events`. */
export interface ToolCallEvent {
  type: 'ready' | 'tool_call.created' | 'tool_call.resolved' | (string & {});
  /** The SSE id, for resuming with `lastEventId`. */
  id: string | undefined;
  /** The ledger row (absent on `ready`). */
  toolCall: LedgerEntry | null;
  data: unknown;
}
