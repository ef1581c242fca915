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
  executor: 'server' | 'client';
}

export interface SubmitResultBody {
  content?: string | Record<string, unknown>[];
  is_error?: boolean;
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
