/**
 * The engine's one public entry: what faces, resources and the server may use. Every
 * conversation rule (turns, the loop, the ledger, approvals, deadlines, continuation, session
 * locks) lives behind it; the files under src/engine are its private parts.
 */
export { Engine } from './engine.ts';
export {
  checkToolChoice,
  isHeldResultsOutcome,
  isQueuedOutcome,
  type AcceptedInput,
  type HeldResultsOutcome,
  type ConversationState,
  type ConversationStatus,
  type EngineOptions,
  type QueuedOutcome,
  type RunOptions,
  type UserInput,
} from './engine-types.ts';
export type { EngineLogger, EngineSettings } from './engine-context.ts';
export type { EngineEvent, EngineEventListener } from './events.ts';
export type { TurnOutcome } from './turn-runner.ts';
export type { ConversationDump, DeleteOptions } from './lifecycle/data-lifecycle.ts';
export { purgeApp, requestAppDeletion } from './lifecycle/app-purge.ts';
export { checkInputItems, type InputItem, type ParamOf } from './input-items.ts';
export type { SubmissionActor } from './ledger/ledger-transitions.ts';
export type { ToolResultInput } from './ledger/result-intake.ts';
export type { ApprovalDecision } from './approvals.ts';
export {
  assertValidToolDefinition,
  assertValidToolSet,
  MAX_TOOLS_PER_REQUEST,
  TOOL_NAME_PATTERN,
} from './tool-schema.ts';
export { blocksTurn, callsPausedOn } from './pending-calls.ts';
export { END_SESSION_TOOL, SYSTEM_TOOLS } from './system-tools.ts';
export type { ModelResolver } from './ports/model-resolver.ts';
export { NO_APP_TOOLS, type ServerCall, type ServerCallResult, type ToolProvider } from './ports/tool-provider.ts';
export {
  NO_TELEMETRY,
  type EngineTelemetry,
  type ToolRunKind,
  type ToolRunResult,
  type TurnRunKind,
} from './ports/telemetry.ts';
export { ResponseChains, type CreateResponse, type ResponseStart } from './responses/response-chains.ts';
export type { ResponseState } from './responses/response-state.ts';
export { DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS } from './responses/response-deadlines.ts';
export type {
  ChatExchangeKind,
  ChatExchangeOutcome,
  ChatExchangeRequest,
  ChatExchanges,
} from './chat/chat-exchanges.ts';
export {
  ConnectionResponseCache,
  MAX_CONNECTION_RESPONSES,
  type ConnectionOwner,
  type ConnectionResponses,
} from './responses/connection-responses.ts';
export type { ItemReference, ResponseInput } from './responses/item-references.ts';
export {
  isHiddenItem,
  isServerExecutor,
  NO_SERVER_CALLS,
  type RenderItem,
  type ServerCallIndex,
  type ServerExecutor,
} from './responses/server-call-index.ts';
export {
  SESSION_ID_PATTERN,
  SessionRuns,
  type SessionRun,
  type SessionRunObserver,
  type SessionRunOutcome,
  type SessionRunStart,
} from './sessions/session-runs.ts';
export type { SessionResponse } from './sessions/response-matching.ts';
export type { LedgerChangeFeed, LedgerChangeFeedSettings, LedgerChangeListener } from './ledger/ledger-change-feed.ts';
