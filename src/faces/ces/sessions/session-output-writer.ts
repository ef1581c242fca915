import { BatonError } from '../../../domain/errors/baton-error.ts';
import type { EngineEvent, EngineEventListener } from '../../../engine/index.ts';
import type { TurnOutcome } from '../../../engine/index.ts';
import type { ItemRecord, LedgerEntryRecord } from '../../../domain/records.ts';
import { END_SESSION_TOOL } from '../../../engine/index.ts';
import { ServerCallLog } from './server-call-log.ts';
import type { SessionOutput, ToolCallWire } from './session-wire.ts';
import type { ToolCallNames } from './tool-call-names.ts';
import { argsFromText, argsFromValue, toolCallWire } from './tool-chunks.ts';

/**
 * Turns a run's engine events into `SessionOutput`s as they happen: each assistant text, and each
 * model step's client calls as one `toolCalls` output. One output is held back so the last of the
 * turn can carry `turnCompleted: true` (and `diagnosticInfo`, with the server calls Baton ran and
 * any approval the turn waits for); with `enableTextStreaming` text goes out delta by delta.
 */
export class SessionOutputWriter {
  private held: SessionOutput | null = null;
  /** True once the agent called `end_session`; the service then closes the session. */
  ended = false;
  private calls: ToolCallWire[] = [];
  private callsGroup: string | null = null;
  private readonly serverCalls: ServerCallLog;

  constructor(
    private readonly sink: (output: SessionOutput) => void,
    private readonly names: ToolCallNames,
    private readonly turnIndex: number,
    private readonly streamText: boolean,
    agentRole: string,
  ) {
    this.serverCalls = new ServerCallLog(names, agentRole);
  }

  readonly listener: EngineEventListener = (event: EngineEvent) => {
    if (event.type === 'text.delta' && this.streamText) this.push({ text: event.delta, turnIndex: this.turnIndex });
    if (event.type === 'item.added') this.onItem(event.item);
  };

  /**
   * Items a request added without events: the outputs written when a paused turn resumes. The
   * server calls of the turn (`entries`, its ledger rows) let their outputs pair with their calls.
   */
  accepted(items: readonly ItemRecord[], entries: readonly LedgerEntryRecord[]): void {
    this.serverCalls.know(entries);
    for (const item of items) this.onItem(item);
  }

  private onItem(item: ItemRecord): void {
    const payload = item.payload;
    if (payload.type === 'function_call' && payload.executor === 'system' && payload.name === END_SESSION_TOOL) {
      this.flushCalls();
      this.ended = true;
      this.push({ endSession: { metadata: argsFromText(payload.arguments) }, turnIndex: this.turnIndex });
      return;
    }
    if (payload.type === 'function_call' && payload.executor === 'client') {
      if (this.callsGroup !== item.groupId) this.flushCalls();
      this.callsGroup = item.groupId;
      this.calls.push(this.callWire(payload.callId, payload.name, argsFromText(payload.arguments)));
      return;
    }
    // Baton answers these itself; the client must not, so they never become `toolCalls`.
    if (payload.type === 'function_call' && (payload.executor === 'server' || payload.executor === 'fake')) {
      this.serverCalls.call(payload.callId, payload.name, argsFromText(payload.arguments), item.createdAt);
      return;
    }
    if (payload.type === 'reasoning') {
      this.serverCalls.reasoning(payload.text, item.createdAt);
      return;
    }
    if (payload.type === 'function_call_output') {
      this.serverCalls.response(payload.callId, payload.output, payload.isError, item.createdAt);
      return;
    }
    if (payload.type === 'message' && payload.role === 'assistant') {
      this.flushCalls();
      if (!this.streamText)
        this.push({
          text: payload.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
          turnIndex: this.turnIndex,
        });
    }
  }

  /** Calls still waiting after a partial set of responses, listed again so the client knows. */
  pendingCalls(entries: readonly LedgerEntryRecord[]): void {
    this.flushCalls();
    const calls = entries.map((entry) => this.callWire(entry.id, entry.toolName, argsFromValue(entry.arguments)));
    if (calls.length > 0) this.push({ toolCalls: { toolCalls: calls }, turnIndex: this.turnIndex });
  }

  /** Ends the output of a turn, or turns its failure into the RPC's error. */
  finish(outcome: TurnOutcome): void {
    const { turn } = outcome;
    if (turn.status === 'failed') {
      throw new BatonError('turn_failed', turn.error?.message ?? 'The agent failed to answer; send the input again.');
    }
    if (turn.status === 'cancelled' || turn.status === 'expired') {
      throw new BatonError('turn_cancelled', `The turn was ${turn.status} before it finished; send the input again.`);
    }
    this.finishPaused(
      turn.status === 'requires_action' ? outcome.pendingCalls.filter((entry) => entry.kind === 'approval') : [],
    );
  }

  /** Sends the turn's last output; `approvals` are the calls the turn still waits on a person for. */
  finishPaused(approvals: readonly LedgerEntryRecord[] = []): void {
    this.flushCalls();
    this.serverCalls.awaitingApproval(approvals);
    const last = this.held ?? { turnIndex: this.turnIndex };
    this.held = null;
    const diagnosticInfo = this.serverCalls.diagnosticInfo();
    this.sink({ ...last, turnCompleted: true, ...(diagnosticInfo ? { diagnosticInfo } : {}) });
  }

  private callWire(id: string, functionName: string, args: Record<string, unknown>): ToolCallWire {
    return toolCallWire(id, this.names.identify(functionName), args);
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
