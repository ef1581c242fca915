import type { ContentBlock, JsonValue } from './common.ts';
import type { LedgerEntry } from './ledger.ts';

/** The Threads face (`/v1/threads`): the SipPulse manual-tools dialect. Mirrors src/faces/threads. */

export type ThreadStatus = 'idle' | 'running' | 'pending';
export type FinishReason = 'stop' | 'tool_use' | 'max_steps' | 'length' | 'error' | 'cancelled';

/** A call the turn waits on. `kind: 'approval'` is decided by a person (`toolCalls.decide`), not answered. */
export interface PendingToolCall {
  id: string;
  type: 'function';
  name: string;
  input: JsonValue;
  kind?: 'approval';
}

export interface Thread {
  id: string;
  object: string;
  agent: string;
  status: ThreadStatus;
  pending_tool_calls: (PendingToolCall & { deadline_at: string | null })[];
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

export interface MessageChoice {
  index: number;
  message: { role: 'assistant'; content: string | null; tool_calls?: PendingToolCall[] };
  finish_reason: FinishReason;
}

/** The answer to `POST /v1/threads/{id}/messages`: the turn's last reply, with the calls it waits on. */
export interface MessageResponse {
  id: string;
  object: string;
  thread_id: string;
  turn_id: string;
  created_at: string;
  choices: MessageChoice[];
  usage: ThreadUsage;
}

/** Token counts of a turn; cached and reasoning tokens appear when the provider reported them. */
export interface ThreadUsage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens read from the provider's prompt cache (part of `input_tokens`). */
  cached_input_tokens?: number;
  /** Output tokens spent on reasoning (part of `output_tokens`). */
  reasoning_tokens?: number;
}

/** A `202`: new input stored while calls are pending (agent `input_policy: queue`). */
export interface QueuedMessage {
  id: string;
  object: string;
  thread_id: string;
  status: string;
  pending_tool_call_ids: string[];
  created_at: string;
}

/**
 * A `202`: results sent for some of a paused turn's calls, kept while the others are pending
 * (agent `partial_results: hold`, the default). The turn resumes once the last result arrives.
 */
export interface HeldToolResults {
  object: string;
  thread_id: string;
  turn_id: string;
  status: string;
  held_tool_call_ids: string[];
  pending_tool_call_ids: string[];
}

/** A call in the transcript; `executor` marks calls Baton ran itself, never the client's to answer. */
export interface TranscriptToolCall {
  id: string;
  type: 'function';
  name: string;
  input: JsonValue;
  executor?: 'server' | 'fake' | 'system' | 'invalid';
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_call_id: string;
  content: string | ContentBlock[];
  is_error?: boolean;
  /** Written by Baton (cancel, deadline), not sent by a client. */
  synthetic?: boolean;
}

/** One message of `GET /v1/threads/{id}/messages`. Assistant content is text (or null); user content text or blocks. */
export interface ThreadMessage {
  id: string;
  object: string;
  role: 'user' | 'assistant' | 'system';
  content: string | null | (ContentBlock | ToolResultBlock)[];
  tool_calls?: TranscriptToolCall[];
  /** What the model showed of its reasoning before an assistant reply (thinking or a summary). */
  reasoning?: string;
  turn_id: string;
  created_at: string;
}

export interface CancelledThread extends Thread {
  cancelled_turn_id: string;
  cancelled_tool_calls: LedgerEntry[];
}

/** `DELETE /v1/threads/{id}`: the thread and every row of it are gone. */
export interface DeletedThread {
  id: string;
  object: 'thread.deleted';
  deleted: true;
}

/** `GET /v1/threads/{id}/export`: `baton.conversation-export/v1` (docs/conversation-export.md). */
export interface ConversationExport {
  schema: 'baton.conversation-export/v1';
  conversation: {
    id: string;
    app_id: string;
    agent: { id: string; name: string };
    metadata: Record<string, string>;
    created_at: string;
    updated_at: string;
  };
  session: { id: string; ended: boolean; variables: Record<string, unknown>; turn_count: number } | null;
  responses: {
    id: string;
    turn_id: string;
    previous_response_id: string | null;
    stored: boolean;
    created_at: string;
  }[];
  turns: Record<string, unknown>[];
  items: ({ id: string; seq: number; turn_id: string; group_id: string; type: string; created_at: string } & Record<
    string,
    unknown
  >)[];
  tool_calls: (Record<string, unknown> & {
    id: string;
    state: string;
    submitted_by: string | null;
    submitted_at: string | null;
  })[];
  queued_inputs: Record<string, unknown>[];
}

// ---- request bodies ---------------------------------------------------------------------------

/** A tool declared by the client (per message, or on an agent). */
export interface ToolDeclaration {
  type?: 'function' | 'client' | 'manual';
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  /** The JSON Schema of the answer a client function expects (the console builds its answer form from it). */
  response_schema?: Record<string, unknown>;
  /** Refuse a result that is not JSON valid against `response_schema` (400 `invalid_tool_result`). */
  enforce_response_schema?: boolean;
  /** Seconds the call may stay pending, 0.001 to 2592000 (30 days). */
  timeout_seconds?: number;
  timeout_policy?: 'error_result' | 'fail' | 'cancel';
  /** Who answers its calls: the conversation's caller (`client`, default) or tool workers (`worker`). */
  executor?: 'client' | 'worker';
  /** A worker tool: how many leases may lapse on one call before `timeout_policy` applies (1–100, default 3). */
  max_attempts?: number;
}

export type InputContentBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      source: { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string };
    };

/** One result; no `content` is an empty result, `is_error` tells the model the tool failed. */
export interface ToolResultInput {
  type: 'tool_result';
  tool_call_id: string;
  content?: string | InputContentBlock[];
  is_error?: boolean;
}

export interface PostMessageBody {
  role?: 'user' | 'tool';
  content: string | InputContentBlock[] | ToolResultInput[];
  tools?: ToolDeclaration[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'tool' | 'function'; name: string };
  parallel_tool_calls?: boolean;
  /** Deadline of this turn's pending calls in seconds, 0.001 to 2592000 (30 days). */
  tool_timeout_seconds?: number;
  max_steps?: number;
  stream?: boolean;
}

export interface CreateThreadBody {
  agent: string;
  metadata?: Record<string, string>;
}
