/**
 * The persisted shapes of Baton's domain. Every face and the engine speak in these; the store
 * maps them to rows. Times are ISO-8601 UTC strings (`Date#toISOString()`), which sort
 * lexicographically in both SQLite and Postgres, so deadline queries compare text.
 */

import type { JsonObject, JsonValue } from './json.ts';
import type { ProviderOptions, ProviderState } from './provider-state.ts';
import type { RetentionPolicy } from './retention.ts';

export type { JsonObject, JsonValue } from './json.ts';
export type { ProviderOptions, ProviderState } from './provider-state.ts';

/** A part of a message or of a tool result. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mediaType: string; data: string }
  /** A document or a remote image: inline base64 `data`, or a `url` the provider fetches. */
  | { type: 'file'; mediaType: string; data: string | null; url: string | null; filename: string | null };

/** A JSON Schema object as written by users (parameters of a tool). */
export type JsonSchema = JsonObject;

export type TimeoutPolicy = 'error_result' | 'fail' | 'cancel';
export type InputPolicy = 'reject' | 'queue';

/** A client-executed tool: the model calls it, the run pauses, the application answers. */
export interface ClientToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
  /**
   * What a client's answer looks like (CES clientFunction `response`). Never sent to the model;
   * it documents the result for people and tools: the console builds its answer form from it.
   */
  responseSchema?: JsonSchema;
  /**
   * The client's result must be JSON valid against `responseSchema`: one that is not is refused
   * (400 naming the field) and the call stays pending. Error results (`is_error`) are not checked.
   */
  enforceResponseSchema?: boolean;
  /** Seconds a call may stay pending before its deadline applies; overrides the agent default. */
  timeoutSeconds?: number;
  timeoutPolicy?: TimeoutPolicy;
  /**
   * An asynchronous call does not pause the turn: the model is told the result will come later
   * and goes on; the result enters the conversation whenever the client sends it.
   */
  asynchronous?: boolean;
  /**
   * `worker`: its calls are offered to tool workers, which claim them under leases
   * (`POST /v1/tool-calls/claim`) instead of the conversation's caller answering them. Absent
   * means `client`. Only client tools may say it.
   */
  executor?: CallExecutor;
  /** For a worker tool: how many leases may lapse on one call before its deadline policy applies (default 3). */
  maxAttempts?: number;
  /** A built-in tool Baton runs itself (see engine/system-tools.ts); never reaches the client. */
  system?: boolean;
  /** Set on tools Baton executes (OpenAPI, MCP toolsets, jsFunction): where the tool comes from. */
  server?: ServerToolSource;
  /** A server tool that waits for a person's approval (a ledger row) before each call runs. */
  requireApproval?: boolean;
  /**
   * A server tool whose call may safely run twice with the same arguments. When the process
   * running a call dies mid-call, the process that takes the turn over runs it again; any other
   * tool's call is recorded with an unknown outcome instead (see engine/interrupted-calls.ts).
   */
  idempotent?: boolean;
  /**
   * Set on a client function whose resource has fake mode on: where its fake code lives. Used only
   * in turns that ask for fakes (`useToolFakes`); server tools handle their fakes in the provider.
   */
  fake?: ServerToolSource;
}

/** Who answers a client tool's calls: the conversation's caller, or a fleet of tool workers. */
export type CallExecutor = 'client' | 'worker';

/** How many lapsed leases a worker call survives when its tool does not say (`max_attempts`). */
export const DEFAULT_WORKER_MAX_ATTEMPTS = 3;

/** Where a server-executed tool comes from: a Tool resource, or one tool of a toolset. */
export interface ServerToolSource {
  collection: 'tools' | 'toolsets';
  resourceId: string;
  /** The tool's name inside its toolset (an operationId, an MCP tool name). */
  toolName?: string;
}

/** A toolset an agent uses, whole or narrowed to some of its tool ids. */
export interface ToolsetReference {
  toolsetId: string;
  toolIds: string[];
}

export type PartialResultsPolicy = 'hold' | 'reject';

/**
 * The `status` a Responses response shows while its turn waits for the client's function_call
 * outputs: `completed` (OpenAI and Open Responses; the default when absent) or `requires_action`
 * (the Nodexa seed's dialect, which its client loops test).
 */
export type PausedResponseStatus = 'completed' | 'requires_action';

export interface AgentDefinition {
  name: string;
  /** `provider:model-id`, e.g. `scripted:auto`, `openai:gpt-4o-mini`. */
  model: string;
  instructions: string;
  description?: string;
  tools: ClientToolDefinition[];
  /** Model steps per turn before the turn ends with finish_reason `max_steps`. */
  maxSteps: number;
  parallelToolCalls: boolean;
  /** Default deadline of a pending call, in seconds; null means no deadline. */
  toolTimeoutSeconds: number | null;
  timeoutPolicy: TimeoutPolicy;
  /** What new user input does while calls are pending. */
  inputPolicy: InputPolicy;
  /**
   * Results of some of a paused turn's calls sent in one Threads message: `hold` (the default
   * when absent) keeps them in the ledger and answers 202 naming the calls still pending, the
   * model getting all results as one message once the set is complete; `reject` refuses the
   * message (400 `missing_tool_results`), as the seed's strict rule.
   */
  partialResults?: PartialResultsPolicy;
  /** What a response of this agent on `/v1/responses` says while it waits for function_call outputs. */
  pausedResponseStatus?: PausedResponseStatus;
  /** How many of the latest transcript items are sent to the model (bounds the cost of a turn). */
  historyLimit: number;
  temperature?: number;
  maxOutputTokens?: number;
  /** Passed to the provider on every model step (thinking, reasoning effort, service tier…). */
  providerOptions?: ProviderOptions;
  /** Tools of the app (by id) the agent may call, besides its inline `tools`. */
  toolIds?: string[];
  toolsets?: ToolsetReference[];
  displayName?: string;
  /** Fields of the CES Agent Baton stores and returns but does not act on (childAgents, callbacks, …). */
  extras?: JsonObject;
  /** The agent's retention policy; each field set overrides the app's (domain/retention.ts). */
  retention?: RetentionPolicy;
}

export interface AppRecord {
  id: string;
  /** The app's id in resource names (`projects/{project}/locations/{location}/apps/{name}`); unique. */
  name: string;
  project: string;
  location: string;
  /** The CES App fields Baton keeps (displayName, description, rootAgent, …), as the API wrote them. */
  settings: JsonObject;
  /** Compare-and-set token of `settings`; the etag is computed from it. */
  revision: number;
  createdAt: string;
  updatedAt: string;
}

/** Resources kept as JSON bodies in one table, told apart by collection. */
/** `mcp-tool-snapshots`: the last tool list each MCP toolset's server gave, used while it is down (never exposed). */
export type ResourceCollection = 'tools' | 'toolsets' | 'mcp-tool-snapshots';

/** A tool or toolset of an app: its body in the CES resource shape, without server-owned fields. */
export interface AppResourceRecord {
  appId: string;
  collection: ResourceCollection;
  id: string;
  body: JsonObject;
  /** Increases on every update; the etag is computed from it. */
  revision: number;
  createdAt: string;
  updatedAt: string;
}

/** A secret of an app: only the ciphertext is stored (AES-256-GCM, see tools/secrets). */
export interface SecretRecord {
  appId: string;
  id: string;
  displayName: string | null;
  ciphertext: string;
  revision: number;
  createdAt: string;
  updatedAt: string;
}

/** A CES session: a client-chosen id bound to the conversation that records it. */
export interface SessionRecord {
  appId: string;
  id: string;
  conversationId: string;
  /** True once the agent ended the session; further input is refused. */
  ended: boolean;
  /** Session variables (`variables` inputs), read by `$context.variables.NAME` references. */
  variables: JsonObject;
  /** Requests that ran the agent (CES `turnIndex` of the latest one). */
  turnCount: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * What a key may do (src/domain/access.ts): `operator` runs the server, `admin` manages its own app,
 * `member` uses its app's APIs, `reader` only reads them.
 */
export type ApiKeyRole = 'operator' | 'admin' | 'member' | 'reader';

export interface ApiKeyRecord {
  id: string;
  appId: string;
  name: string | null;
  /** sha256 hex of the secret; the secret itself is never stored. */
  keyHash: string;
  /** The first characters of the key, shown in listings so people can tell keys apart. */
  prefix: string;
  role: ApiKeyRole;
  createdAt: string;
  revokedAt: string | null;
  /** After this instant the key no longer authenticates (set at creation or by a rotation's grace). */
  expiresAt: string | null;
  /** Recorded at most once a minute per key, so authentication stays a read. */
  lastUsedAt: string | null;
  /**
   * A worker key: it may only claim and answer calls of these tools (docs/tool-workers.md).
   * Null for an ordinary key.
   */
  toolScope: string[] | null;
}

export interface AgentRecord {
  id: string;
  appId: string;
  name: string;
  /** Increases on every update; a paused turn pins the version it ran with. */
  version: number;
  definition: AgentDefinition;
  createdAt: string;
  updatedAt: string;
}

export interface AgentVersionRecord {
  agentId: string;
  version: number;
  definition: AgentDefinition;
  createdAt: string;
}

export interface ConversationRecord {
  id: string;
  appId: string;
  agentId: string;
  agentName: string;
  /** Compare-and-set token: every state change of the conversation increments it. */
  version: number;
  /** The turn that is running or paused, if any. */
  activeTurnId: string | null;
  /** The last turn started on this conversation. */
  headTurnId: string | null;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export type TurnStatus = 'in_progress' | 'requires_action' | 'completed' | 'failed' | 'cancelled' | 'expired';

export type FinishReason = 'stop' | 'tool_use' | 'max_steps' | 'length' | 'error' | 'cancelled';

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

/** Structured output asked of the model's text (Responses `text.format`). */
export type ResponseFormat =
  { type: 'text' } | { type: 'json'; schema?: JsonSchema; name?: string; description?: string };

/** Per-request settings persisted with the turn so any process can resume it. */
export interface TurnOptions {
  /** Client tools declared on the request, added to the agent's. */
  tools: ClientToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  toolTimeoutSeconds?: number;
  /**
   * The deadline of a call the client answers when neither the request, its tool nor its agent
   * gives one (the Responses face's `responses.tool_timeout_seconds`): a stateless client that
   * walks away leaves nothing pending for ever.
   */
  defaultToolTimeoutSeconds?: number;
  maxSteps?: number;
  /** Instructions of this request, added after the agent's (not carried to later turns). */
  instructions?: string;
  /** Only these tools (by name) are offered to the model: a hard filter, not a hint. */
  allowedTools?: string[];
  /** Tool calls the turn may make in total; later calls are refused to the model. */
  maxToolCalls?: number;
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  responseFormat?: ResponseFormat;
  /** Tools with fake mode on run their fakes in this turn (CES `useToolFakes`). */
  useToolFakes?: boolean;
  /** Reasoning asked by the request (Responses `reasoning`); OpenAI models read it, over the agent's options. */
  reasoning?: { effort?: string; summary?: string };
}

export interface TurnError {
  code: string;
  message: string;
}

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens the provider read from its prompt cache (part of `inputTokens`); absent when it did not say. */
  cachedInputTokens?: number;
  /** Output tokens spent on reasoning (part of `outputTokens`); absent when the provider did not say. */
  reasoningTokens?: number;
}

export interface TurnRecord {
  id: string;
  appId: string;
  conversationId: string;
  agentId: string;
  agentVersion: number;
  status: TurnStatus;
  options: TurnOptions;
  finishReason: FinishReason | null;
  error: TurnError | null;
  stepCount: number;
  usage: TurnUsage;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /**
   * The run that holds the turn while it is `in_progress`: minted at each start, resume and
   * takeover. The run's writes are guarded on it, so one that lost the turn cannot commit.
   */
  leaseToken: string | null;
  /** How many times another process continued the turn after its holder went silent. */
  takeovers: number;
  /** The Idempotency-Key of the request that started the turn, if it had one. */
  requestKey: string | null;
}

/** `system`: a built-in tool Baton ran itself (e.g. `end_session`); `server`: a tool Baton executes (OpenAPI, MCP, JavaScript). */
/** Who answered a call: the client, Baton (system tools, server tools, fakes of any tool), or nobody (invalid). */
export type ToolExecutor = 'client' | 'invalid' | 'system' | 'server' | 'fake';

export type ItemPayload =
  | {
      type: 'message';
      /** `system` items come from the client's input (system or developer messages), never from the model. */
      role: 'user' | 'assistant' | 'system';
      content: ContentPart[];
      /** An assistant message's phase, as the client labelled it (Responses `phase`). */
      phase?: 'commentary' | 'final_answer';
      /** What the model's provider attached to this text (assistant messages the model wrote). */
      provider?: ProviderState;
    }
  | {
      /**
       * The model's reasoning in one step, before the text and calls it led to. `text` is what the
       * provider showed (full thinking or a summary; empty when redacted or encrypted); the
       * signature or encrypted content lives in `provider` and never leaves Baton, except an
       * OpenAI `encrypted_content` a Responses client asks for with `include`.
       */
      type: 'reasoning';
      text: string;
      provider: ProviderState;
    }
  | {
      type: 'function_call';
      callId: string;
      name: string;
      /** The arguments as the JSON text the model produced. */
      arguments: string;
      /** `invalid` calls were rejected by validation and answered to the model, never to the client. */
      executor: ToolExecutor;
      /** What the model's provider attached to this call (a Gemini thought signature, an item id). */
      provider?: ProviderState;
    }
  | {
      type: 'function_call_output';
      callId: string;
      name: string;
      output: ContentPart[];
      isError: boolean;
      /** True when Baton wrote the result itself (cancel, expiry, invalid arguments). */
      synthetic: boolean;
    };

export interface NewItem {
  id: string;
  conversationId: string;
  turnId: string;
  /** Items that one face message groups together (an assistant reply with its calls, a results message). */
  groupId: string;
  payload: ItemPayload;
  createdAt: string;
}

export interface ItemRecord extends NewItem {
  /** Global, monotonically increasing position; orders items within a conversation. */
  seq: number;
}

export type LedgerState = 'pending' | 'completed' | 'failed' | 'denied' | 'expired' | 'cancelled';
/**
 * `client_async`: an asynchronous client call, which never pauses its turn. `server`: a call Baton
 * ran itself (recorded so a resumed turn never runs it again). `approval`: a server call waiting for
 * a person's decision.
 */
export type LedgerKind = 'client' | 'approval' | 'client_async' | 'server';

export interface LedgerEntryRecord {
  /** The call id, as the model and the client see it. */
  id: string;
  appId: string;
  conversationId: string;
  turnId: string;
  agentName: string;
  toolName: string;
  kind: LedgerKind;
  arguments: JsonValue;
  /** sha256 of the canonical arguments JSON; binds a result or decision to what was asked. */
  argumentsHash: string;
  /** Order of the call within its model step; results enter the transcript in this order. */
  callIndex: number;
  state: LedgerState;
  deadlineAt: string | null;
  timeoutPolicy: TimeoutPolicy;
  result: ContentPart[] | null;
  isError: boolean;
  submittedBy: string | null;
  submittedAt: string | null;
  idempotencyKey: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * The W3C `traceparent` of the run that paused on the call, stored with it when tracing is on,
   * so that whoever resumes the turn (any process) links its run to that one. Absent otherwise.
   */
  traceContext?: string;
  /** Set on calls of a tool marked `executor: worker`: they are offered to tool workers under leases. */
  worker?: WorkerCallState;
}

/** A worker's hold on a pending call: only the holder of `token` may answer it until `expiresAt`. */
export interface CallLease {
  token: string;
  /** The worker's label (or its key id when it gave none), for people watching the inbox. */
  holder: string;
  keyId: string;
  claimedAt: string;
  expiresAt: string;
}

/** The worker side of a worker call: its attempts, and the lease holding it, if any. */
export interface WorkerCallState {
  /** Claims so far; a released claim does not count. */
  attempts: number;
  maxAttempts: number;
  /** The latest lease (it may have lapsed: compare `expiresAt` with now); null once released or lapsed. */
  lease: CallLease | null;
}

export interface LedgerResolution {
  state: Exclude<LedgerState, 'pending'>;
  result: ContentPart[];
  isError: boolean;
  submittedBy: string | null;
  submittedAt: string;
  idempotencyKey: string | null;
}

export interface IdempotencyRecord {
  appId: string;
  key: string;
  /** sha256 of method + path + body; a reuse with a different request is refused. */
  requestHash: string;
  state: 'in_progress' | 'done';
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: string;
  /** The server process that runs (or ran) the request; null on rows from before leases. */
  owner: string | null;
  /**
   * While `in_progress`: when the owner's lease ends unless it renews it. Past it, the owner is
   * taken for dead and a retry of the same request may take the key over.
   */
  leaseExpiresAt: string | null;
}

/**
 * One request/response exchange of the Responses face over a conversation. A turn that pauses for
 * client tools and resumes spans several responses; each owns a contiguous run of the
 * conversation's items: its input items, then its output up to the next response's input.
 */
export interface ResponseRecord {
  id: string;
  appId: string;
  conversationId: string;
  turnId: string;
  previousResponseId: string | null;
  /** `seq` of this response's first and last input item. */
  inputFirstSeq: number;
  inputLastSeq: number;
  /** The turn's usage when this response began; its own usage is the growth since. */
  usageBefore: TurnUsage;
  /** Request fields the face echoes back (model, tools, sampling settings, metadata…), face-owned JSON. */
  echo: JsonObject;
  /** False for `store: false`: not readable by id, not continuable over HTTP, purged once done. */
  stored: boolean;
  /** This response created its conversation (its first request had no previous response). */
  ownsConversation: boolean;
  createdAt: string;
}

export interface QueuedInputRecord {
  id: string;
  appId: string;
  conversationId: string;
  content: ContentPart[];
  options: TurnOptions;
  createdAt: string;
}
