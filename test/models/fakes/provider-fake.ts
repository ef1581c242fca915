/**
 * What every provider-faithful fake server shares. Each fake (`openai-responses-fake.ts`,
 * `chat-completions-fake.ts`, `anthropic-messages-fake.ts`, `google-generate-content-fake.ts`)
 * speaks one provider's wire protocol, streams as that provider documents, and enforces the
 * provider's documented rules on every request, answering a violation with the provider's own
 * status, error envelope and wording. What the "model" says is decided by a `ModelScript`, which
 * sees a provider-neutral view of the conversation the request carried.
 */

/** One tool result in the request's last tool/user turn. */
export interface ScriptToolResult {
  callId: string;
  /** The tool's name when the wire carries it (Gemini and Chat Completions do; others are looked up). */
  name: string | undefined;
  /** The result's text (non-text parts as `[image]`, `[file]`). */
  output: string;
  isError: boolean;
  /** Media types of the non-text parts of the result (images), in order. */
  mediaTypes: string[];
}

export interface ScriptView {
  /** The model id of the request (from the body or the URL). */
  model: string;
  /** 0-based index of this request among the requests the fake has accepted. */
  requestIndex: number;
  /** Names of the function tools the request offers. */
  tools: string[];
  /** The text of the last message when it is a user message with text; otherwise null. */
  lastUserText: string | null;
  /** Results in the request's last turn, when it answers tool calls; otherwise empty. */
  toolResults: ScriptToolResult[];
  /** Whether the request turns reasoning/thinking on (Anthropic `thinking`, Gemini `thinkingConfig.includeThoughts`, OpenAI `reasoning`). */
  reasoningRequested: boolean;
  /** The whole parsed request body, for tests that need more. */
  body: any;
}

export interface ScriptCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ScriptReply {
  /** Reasoning the model emits first (thinking block / thought part / reasoning item summary). */
  reasoning?: string;
  text?: string;
  calls?: ScriptCall[];
  usage?: { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number; reasoningTokens?: number };
}

export type ModelScript = (view: ScriptView) => ScriptReply;

export interface RecordedRequest {
  method: string;
  /** Path with query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request the fake refused, with what it answered. */
export interface Rejection {
  request: RecordedRequest;
  status: number;
  body: unknown;
}

export interface ProviderFake {
  /** What to configure as the provider's `baseURL` (e.g. `http://127.0.0.1:PORT/v1`). */
  readonly baseURL: string;
  /** Every request received, in order, including refused ones. */
  readonly requests: RecordedRequest[];
  /** Every request refused for breaking a provider rule, with the provider-style error sent back. */
  readonly rejections: Rejection[];
  close(): Promise<void>;
}
