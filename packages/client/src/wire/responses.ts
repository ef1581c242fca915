import type { TurnStatus } from './common.ts';

/**
 * The Responses face (`/v1/responses`, Open Responses / OpenAI-compatible). Only what the SDK
 * reads is typed precisely; the rest of the ResponseResource stays available as `unknown`.
 * Mirrors src/faces/responses/response-views.ts and item-views.ts.
 */

/** `requires_action` only on `/nodexa/v1/responses`, or for agents with `paused_response_status: requires_action`. */
export type ResponseStatus =
  'queued' | 'in_progress' | 'completed' | 'requires_action' | 'incomplete' | 'failed' | 'cancelled';

/** Baton's run behind a response: whether it waits for `function_call_output`s or for approvals. */
export interface BatonRun {
  id: string;
  conversation_id: string;
  status: TurnStatus;
  pending_tool_call_ids: string[];
  pending_approval_ids: string[];
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations?: unknown[];
  logprobs?: unknown[];
}

export interface MessageItem {
  type: 'message';
  id: string;
  status: string;
  role: 'assistant' | 'user' | 'system' | 'developer';
  content: (OutputText | { type: string; [key: string]: unknown })[];
}

/** A call for the client to run: answer it with a `function_call_output` of the same `call_id`. */
export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  /** JSON text. */
  arguments: string;
  status: string;
}

export interface FunctionCallOutputItem {
  type: 'function_call_output';
  id: string;
  call_id: string;
  output: string | { type: string; [key: string]: unknown }[];
  status: string;
}

/** A call Baton runs itself; `approval` is set when it waits for (or had) a person's decision. */
export interface BatonToolCallItem {
  type: 'baton:tool_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  executor: 'server' | 'fake';
  status: string;
  approval?: { status: string; decide_url: string | null };
}

export interface BatonToolResultItem {
  type: 'baton:tool_result';
  id: string;
  call_id: string;
  output: string | { type: string; [key: string]: unknown }[];
  is_error: boolean;
  status: string;
}

export type ResponseItem =
  MessageItem | FunctionCallItem | FunctionCallOutputItem | BatonToolCallItem | BatonToolResultItem;

export interface ResponseObject {
  id: string;
  object: string;
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  previous_response_id: string | null;
  model: string;
  output: ResponseItem[];
  error: { code: string; message: string } | null;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number } | null;
  /** Absent only on servers that are not Baton. */
  baton_run?: BatonRun;
  [key: string]: unknown;
}

export interface FunctionToolDeclaration {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
  /** Baton: who answers its calls, the caller (`client`, default) or tool workers (`worker`). */
  executor?: 'client' | 'worker';
  /** Baton, worker tools: how many leases may lapse on one call before its deadline policy applies (1–100, default 3). */
  max_attempts?: number;
}

export type ResponseInputItem =
  | {
      type?: 'message';
      role: 'user' | 'assistant' | 'system' | 'developer';
      content: string | { type: string; [key: string]: unknown }[];
    }
  | { type: 'function_call_output'; call_id: string; output: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'item_reference'; id: string };

/** `POST /v1/responses`. Unlisted fields of the spec may be passed too. */
export interface CreateResponseBody {
  model?: string;
  input?: string | ResponseInputItem[];
  instructions?: string;
  tools?: FunctionToolDeclaration[];
  previous_response_id?: string;
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  metadata?: Record<string, string>;
  store?: boolean;
  stream?: boolean;
  [key: string]: unknown;
}
