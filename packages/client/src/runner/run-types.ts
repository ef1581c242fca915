import type { ApprovalDecision } from '../wire/ledger.ts';
import type { ToolHandler, ToolsInput } from '../tools/define-tool.ts';

/** The public shapes of a tool-loop run, shared by the Threads, Responses and CES runners. */

/** A call the model made: for a handler to answer (`client`), or for a person to decide (`approval`). */
export interface RunCall {
  id: string;
  name: string;
  input: unknown;
  kind: 'client' | 'approval';
  /** The call as the face sent it (a Threads tool call, a `function_call` item, a CES toolCall). */
  raw: unknown;
}

/** A reply of the agent: its text and the calls it waits on. */
export interface RunMessage<Raw = unknown> {
  id: string;
  text: string | null;
  toolCalls: RunCall[];
  /** The reply as the API returned it. */
  raw: Raw;
}

/** A call a handler answered, and what was sent. */
export interface ToolCallRecord {
  id: string;
  name: string;
  input: unknown;
  /** The content sent ('' for an empty result). */
  result: string;
  isError: boolean;
  durationMs: number;
}

export interface RunResult<Raw = unknown> {
  /** The final assistant text ('' when the last reply had none). */
  text: string;
  /** The conversation: thread id (Threads; the conversation behind a Responses run), or the CES session name. */
  threadId: string;
  /** The last reply. */
  message: RunMessage<Raw>;
  /** Every call the handlers answered during the run, in the order they were answered. */
  toolCalls: ToolCallRecord[];
  /** How many times results were sent. */
  rounds: number;
  /** Responses runs: the last response, to continue with `previousResponseId`. */
  responseId?: string;
}

export type RunEvent<Raw = unknown> =
  /** Text as the model writes it (streaming runs only). */
  | { type: 'text.delta'; delta: string; messageId: string }
  /** A client call about to run. */
  | { type: 'tool_call'; call: RunCall }
  /** A client call's result, about to be sent. */
  | { type: 'tool_result'; call: RunCall; result: string; isError: boolean; durationMs: number }
  /** A call that waits for a person's decision. */
  | { type: 'approval'; call: RunCall }
  /** A reply the server just produced. */
  | { type: 'message'; message: RunMessage<Raw> }
  | { type: 'done'; result: RunResult<Raw> };

export interface ApprovalContext {
  threadId: string;
  signal: AbortSignal;
}

/** Decides an approval in code (a policy, a prompt to a person). Without one, the run waits for someone to decide. */
export type ApprovalHandler = (call: RunCall, context: ApprovalContext) => ApprovalDecision | Promise<ApprovalDecision>;

export interface RunOptions<Raw = unknown> {
  /** Handlers by tool name, or a list of `defineTool` results. */
  tools?: ToolsInput;
  /** Answers calls of tools that have no handler; without it they get an error result naming the tool. */
  fallback?: ToolHandler;
  /** Per-handler time limit (default 60 s; 0 or Infinity: none). A late handler's call gets an error result. */
  handlerTimeoutMs?: number;
  /** Aborts HTTP requests and handlers (their `signal`); the run rejects with an AbortError. */
  signal?: AbortSignal;
  onApproval?: ApprovalHandler;
  /** How often to look again while waiting for someone else's decision (default: the client's, 1000 ms). */
  pollIntervalMs?: number;
  /** Most result rounds before the run gives up (default 25): a guard against a model that loops. */
  maxRounds?: number;
  /** Sees every event of the run as it happens. */
  onEvent?: (event: RunEvent<Raw>) => void;
  /**
   * Declare tools that carry a JSON Schema (`defineTool`, or entries with `parameters`) to the
   * model, on faces that take per-request tools (Threads, Responses). Default true.
   */
  declareTools?: boolean;
}
