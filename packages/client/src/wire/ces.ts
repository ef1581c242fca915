/**
 * CES sessions (`/v1/{session}:runSession`), google.cloud.ces.v1 JSON. Mirrors
 * src/faces/ces/sessions/session-wire.ts and conversation-views.ts.
 */

/** A tool reference: a Tool resource name, or one tool of a toolset. */
export type CesToolRef = { tool: string } | { toolsetTool: { toolset: string; toolId: string } };

/** A client function call: answer with a toolResponse echoing `id`, the reference and `displayName`. */
export type CesToolCall = CesToolRef & { id: string; displayName: string; args: Record<string, unknown> };

export interface CesMessage {
  role: string;
  chunks: Record<string, unknown>[];
  eventTime: string;
}

/** One output: text, the client calls of a model step, or the end of the session. */
export interface SessionOutput {
  text?: string;
  toolCalls?: { toolCalls: CesToolCall[] };
  endSession?: { metadata?: Record<string, unknown> };
  turnIndex: number;
  turnCompleted?: boolean;
  /** On the turn's last output: server calls Baton ran, and approvals the turn waits for. */
  diagnosticInfo?: { messages: CesMessage[] };
}

export interface RunSessionResponse {
  outputs: SessionOutput[];
}

/** `{output: …}` for a result, `{error: …}` for a failure. */
export interface CesToolResponse {
  id?: string;
  tool?: string;
  toolsetTool?: { toolset: string; toolId: string };
  displayName?: string;
  response: Record<string, unknown>;
}

export interface SessionInput {
  text?: string;
  toolResponses?: { toolResponses: CesToolResponse[] };
  image?: { mimeType: string; data: string };
  blob?: { mimeType: string; data: string };
  variables?: Record<string, unknown>;
  event?: { event: string };
  willContinue?: boolean;
}

export interface SessionConfig {
  session: string;
  entryAgent?: string;
  useToolFakes?: boolean;
  timeZone?: string;
  enableTextStreaming?: boolean;
  [key: string]: unknown;
}

export interface RunSessionRequest {
  config: SessionConfig;
  inputs: SessionInput[];
}

/** A CES Conversation (`GET …/conversations/{session}`). */
export interface CesConversation {
  name: string;
  startTime: string;
  endTime?: string;
  turnCount: number;
  entryAgent: string;
  source: string;
  inputTypes: string[];
  turns?: { messages: CesMessage[] }[];
}
