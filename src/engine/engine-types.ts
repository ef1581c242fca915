import type {
  AgentDefinition,
  ConversationRecord,
  ItemRecord,
  LedgerEntryRecord,
  QueuedInputRecord,
  TurnOptions,
  TurnRecord,
} from '../domain/records.ts';
import type { Repositories, Store } from '../store/store.ts';
import type { Clock } from '../domain/clock.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import type { EngineLogger, EngineSettings } from './engine-context.ts';
import type { ModelResolver } from './ports/model-resolver.ts';
import type { EngineEventListener } from './events.ts';
import type { IdGenerator } from '../domain/ids.ts';
import type { ToolProvider } from './ports/tool-provider.ts';
import type { EngineTelemetry } from './ports/telemetry.ts';
import type { InputItem } from './input-items.ts';
import type { SubmissionActor } from './ledger/ledger-transitions.ts';
import type { ToolResultInput } from './ledger/result-intake.ts';

/** The shapes the engine's methods take and return. */

export interface EngineOptions {
  store: Store;
  models: ModelResolver;
  tools?: ToolProvider;
  /** Traces and metrics of turn runs, model steps and tool runs; none when absent. */
  telemetry?: EngineTelemetry;
  clock?: Clock;
  newId?: IdGenerator;
  logger?: EngineLogger;
  settings?: Partial<EngineSettings>;
}

export type ConversationStatus = 'idle' | 'running' | 'pending';

export interface ConversationState {
  conversation: ConversationRecord;
  status: ConversationStatus;
  activeTurn: TurnRecord | null;
  pendingCalls: LedgerEntryRecord[];
}

export interface UserInput {
  /** Usually one user message; a face may also replay a transcript (see `InputItem`). */
  items: InputItem[];
  options: TurnOptions;
  /** Results of asynchronous calls made in earlier turns, delivered before `items`. */
  asyncResults?: ToolResultInput[];
}

/** What a request added to a conversation, handed to `onAccepted` inside the same transaction. */
export interface AcceptedInput {
  turn: TurnRecord;
  /** The input items as stored (user messages, tool outputs), in order. */
  inputItems: ItemRecord[];
}

export interface RunOptions {
  listener?: EngineEventListener;
  submission: SubmissionActor;
  /**
   * Runs inside the transaction that accepts the input (starts or resumes the turn), so a face's
   * own record of the request (a Responses `response`) commits with it or not at all.
   */
  onAccepted?: (tx: Repositories, accepted: AcceptedInput) => Promise<void>;
  /** Return as soon as the input is accepted; the turn runs in the background. */
  detach?: boolean;
  /** Whether input sent while calls are pending may be queued under the agent's `queue` policy (default true). */
  allowQueue?: boolean;
}

/** New input accepted while calls were pending, under the agent's `queue` policy. */
export interface QueuedOutcome {
  queued: QueuedInputRecord;
  pendingCallIds: string[];
}

export function isQueuedOutcome<Other extends object>(outcome: Other | QueuedOutcome): outcome is QueuedOutcome {
  return 'queued' in outcome;
}

/**
 * Results held for some of a paused turn's calls while others are still pending (the agent's
 * `partialResults: hold`): they are in the ledger, and the turn resumes once the set is complete.
 */
export interface HeldResultsOutcome {
  turn: TurnRecord;
  held: LedgerEntryRecord[];
  /** The turn's calls still waiting (client calls and approvals), as last read. */
  pendingCalls: LedgerEntryRecord[];
}

export function isHeldResultsOutcome<Other extends object>(
  outcome: Other | HeldResultsOutcome,
): outcome is HeldResultsOutcome {
  return 'held' in outcome;
}

/** A forced `tool_choice` must name a tool the turn can call. */
export function checkToolChoice(agent: Pick<AgentDefinition, 'tools'>, options: TurnOptions): void {
  const known = [...agent.tools, ...options.tools].map((tool) => tool.name);
  const choice = options.toolChoice;
  if (typeof choice === 'object' && !known.includes(choice.name)) {
    throw new BatonError(
      'unknown_tool_choice',
      `tool_choice names '${choice.name}', which is not a tool of this request; available: ${known.join(', ') || 'none'}.`,
      {
        param: 'tool_choice.name',
      },
    );
  }
  for (const [index, name] of (options.allowedTools ?? []).entries()) {
    if (!known.includes(name)) {
      throw new BatonError(
        'unknown_allowed_tool',
        `tool_choice.tools[${index}] names '${name}', which is not a tool of this request; available: ${known.join(', ') || 'none'}.`,
        {
          param: `tool_choice.tools[${index}].name`,
        },
      );
    }
  }
}
