/**
 * @baton/client — Baton's TypeScript client: typed API calls and the tool loop for
 * client-executed tools, over Threads, Responses and CES. No dependencies; runs in Node 20+ and
 * browsers (global fetch, streams, Web Crypto).
 * @module
 */

export const VERSION = '0.1.0';

export { Baton, DEFAULT_BASE_URL, normalizeBaseURL, type BatonOptions } from './baton.ts';
export {
  BatonConnectionError,
  BatonError,
  BatonLeaseLostError,
  BatonRunError,
  BatonTimeoutError,
  BatonWebhookVerificationError,
  isAbortError,
  type BatonRunErrorCode,
  type LeaseLostReason,
  type WebhookVerificationFailure,
} from './errors.ts';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  verifyWebhook,
  type VerifyWebhookOptions,
  type WebhookHeaders,
} from './webhooks/verify-webhook.ts';

export {
  defineTool,
  type DefinedTool,
  type ToolContext,
  type ToolEntry,
  type ToolHandler,
  type ToolInput,
  type ToolsInput,
} from './tools/define-tool.ts';
export type { FromSchema, JsonSchema } from './tools/from-schema.ts';

export type {
  ApprovalContext,
  ApprovalHandler,
  RunCall,
  RunEvent,
  RunMessage,
  RunOptions,
  RunResult,
  ToolCallRecord,
} from './runner/run-types.ts';
export type { ThreadReply } from './runner/thread-steps.ts';
export type { CesReply } from './runner/ces-face.ts';
export type { ThreadMessageSettings } from './runner/threads-face.ts';

export type { AgentBody, AgentToolBody, AgentUpdateBody, Agents } from './resources/agents.ts';
export type { ApiKeys, Apps, AppScope } from './resources/api-keys.ts';
export type { CallOptions } from './resources/call-options.ts';
export type { CesSessions, SessionRunOptions } from './resources/ces-sessions.ts';
export type { ResponseResumeOptions, ResponseRunParams, Responses } from './resources/responses.ts';
export type { ThreadRunOptions, Threads } from './resources/threads.ts';
export type { ClaimToolCallsParams, ToolCallEventsOptions, ToolCalls } from './resources/tool-calls.ts';
export type { Webhooks } from './resources/webhooks.ts';

export type { Workers } from './workers/workers.ts';
export type {
  WorkerContext,
  WorkerErrorContext,
  WorkerErrorStage,
  WorkerHandler,
  WorkerLease,
  WorkerRunOptions,
  WorkerRunSummary,
} from './workers/worker-options.ts';

export { randomIdempotencyKey, derivedIdempotencyKey } from './http/idempotency-key.ts';
export type { FetchLike, RequestOptions, Transport } from './http/transport.ts';
export { parseSse, SseDecoder, type SseMessage } from './sse/parse-sse.ts';

export type * from './wire/agents.ts';
export type * from './wire/ces.ts';
export type * from './wire/common.ts';
export type * from './wire/keys.ts';
export type * from './wire/ledger.ts';
export type * from './wire/responses.ts';
export type * from './wire/threads.ts';
export type * from './wire/webhooks.ts';
