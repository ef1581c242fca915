/** Shapes every face shares. */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A cursor page of the native API (`GET /v1/threads/{id}/messages`, `/v1/tool-calls`, `/v1/agents`). */
export interface Page<T> {
  object: string;
  data: T[];
  has_more: boolean;
  /** Pass as `after` to read the next page; null on the last one. */
  next_cursor: string | null;
}

/**
 * A content block of a message or a tool result: `{type:'text', text}`, `{type:'image', source}`
 * or a `document` with a base64 or URL source. Loose on purpose: new block kinds must not break
 * old clients.
 */
export interface ContentBlock {
  type: string;
  text?: string;
  source?: { type: string; media_type?: string; data?: string | null; url?: string };
  title?: string;
  [key: string]: unknown;
}

/** What a thread-style tool call (and the ledger) says about where a call stands. */
export type ToolCallKind = 'client' | 'approval' | 'client_async' | 'server';
export type ToolCallState = 'pending' | 'completed' | 'failed' | 'denied' | 'expired' | 'cancelled';
export type TimeoutPolicy = 'error_result' | 'fail' | 'cancel';
export type TurnStatus = 'in_progress' | 'requires_action' | 'completed' | 'failed' | 'cancelled' | 'expired';

/** Who an API key is (`GET /v1/me`): its app (with the app's CES resource name) and its role. */
export interface Principal {
  object: string;
  app: { id: string; name: string; project: string; location: string; resource_name: string };
  key: { id: string; role: 'reader' | 'member' | 'admin' | 'operator' };
}
