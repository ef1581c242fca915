import type { EngineEvent, EngineEventListener } from '../../../engine/events.ts';
import type { TurnOutcome } from '../../../engine/turn-runner.ts';
import type { ItemRecord, LedgerEntryRecord } from '../../../store/records.ts';
import { cesError } from '../ces-errors.ts';
import { END_SESSION_TOOL } from '../../../engine/system-tools.ts';
import type { SessionOutput, ToolCallWire } from './session-wire.ts';
import type { ToolCallNames } from './tool-call-names.ts';

/**
 * Turns a run's engine events into `SessionOutput`s as they happen: each assistant text, and each
 * model step's client calls as one `toolCalls` output. One output is held back so the last of the
 * turn can carry `turnCompleted: true`; with `enableTextStreaming` text goes out delta by delta.
 */
export class SessionOutputWriter {
  private held: SessionOutput | null = null;
  /** True once the agent called `end_session`; the service then closes the session. */
  ended = false;
  private calls: ToolCallWire[] = [];
  private callsGroup: string | null = null;

  constructor(
    private readonly sink: (output: SessionOutput) => void,
    private readonly names: ToolCallNames,
    private readonly turnIndex: number,
    private readonly streamText: boolean,
  ) {}

  readonly listener: EngineEventListener = (event: EngineEvent) => {
    if (event.type === 'text.delta' && this.streamText) this.push({ text: event.delta, turnIndex: this.turnIndex });
    if (event.type === 'item.added') this.onItem(event.item);
  };

  private onItem(item: ItemRecord): void {
    const payload = item.payload;
    if (payload.type === 'function_call' && payload.executor === 'system' && payload.name === END_SESSION_TOOL) {
      this.flushCalls();
      this.ended = true;
      this.push({ endSession: { metadata: parseArguments(payload.arguments) }, turnIndex: this.turnIndex });
      return;
    }
    if (payload.type === 'function_call' && payload.executor === 'client') {
      if (this.callsGroup !== item.groupId) this.flushCalls();
      this.callsGroup = item.groupId;
      this.calls.push(this.callWire(payload.callId, payload.name, parseArguments(payload.arguments)));
      return;
    }
    if (payload.type === 'message' && payload.role === 'assistant') {
      this.flushCalls();
      if (!this.streamText) this.push({ text: payload.content.map((part) => (part.type === 'text' ? part.text : '')).join(''), turnIndex: this.turnIndex });
    }
  }

  /** Calls still waiting after a partial set of responses, listed again so the client knows. */
  pendingCalls(entries: readonly LedgerEntryRecord[]): void {
    this.flushCalls();
    const calls = entries.map((entry) => this.callWire(entry.id, entry.toolName, isRecord(entry.arguments) ? entry.arguments : {}));
    if (calls.length > 0) this.push({ toolCalls: { toolCalls: calls }, turnIndex: this.turnIndex });
  }

  /** Ends the output of a turn, or turns its failure into the RPC's error. */
  finish(outcome: TurnOutcome): void {
    const { turn } = outcome;
    if (turn.status === 'failed') {
      throw cesError('UNAVAILABLE', 'TURN_FAILED', turn.error?.message ?? 'The agent failed to answer; send the input again.');
    }
    if (turn.status === 'cancelled' || turn.status === 'expired') {
      throw cesError('ABORTED', 'TURN_CANCELLED', `The turn was ${turn.status} before it finished; send the input again.`);
    }
    this.finishPaused();
  }

  finishPaused(): void {
    this.flushCalls();
    const last = this.held ?? { turnIndex: this.turnIndex };
    this.held = null;
    this.sink({ ...last, turnCompleted: true });
  }

  private callWire(id: string, functionName: string, args: Record<string, unknown>): ToolCallWire {
    const identity = this.names.identify(functionName);
    return { id, tool: identity.tool, displayName: identity.displayName, args };
  }

  private flushCalls(): void {
    if (this.calls.length === 0) return;
    this.push({ toolCalls: { toolCalls: this.calls }, turnIndex: this.turnIndex });
    this.calls = [];
    this.callsGroup = null;
  }

  private push(output: SessionOutput): void {
    if (this.held) this.sink(this.held);
    this.held = output;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}
