import { BatonError } from '../domain/errors/baton-error.ts';
import type { AgentDefinition, ConversationRecord, LedgerEntryRecord, TurnRecord } from '../domain/records.ts';
import type { AgentVersions } from './agent-versions.ts';
import { runInBackground, type EngineContext } from './engine-context.ts';
import type { RunOptions, UserInput } from './engine-types.ts';
import type { EngineEventListener } from './events.ts';
import { beginResume } from './result-submission.ts';
import { runTurn, type TurnOutcome } from './turn-runner.ts';
import { startTurn } from './turn-start.ts';
import type { RunOpening } from './run-opening.ts';
import type { TurnSlot } from './turn-slots.ts';
import type { TurnRunKind } from './ports/telemetry.ts';

const NO_CALLS: readonly LedgerEntryRecord[] = [];

/**
 * How the engine sets turns going: it starts a turn with its input, runs the loop for the caller
 * (or in the background), resolves the agent version a turn pinned, and, once a turn ends, starts
 * the input queued behind it.
 */
export class TurnDispatch {
  constructor(
    private readonly context: EngineContext,
    private readonly agentVersions: AgentVersions,
  ) {}

  /** Creates the turn and appends its input (see `startTurn`). */
  startTurn(
    conversation: ConversationRecord,
    agentId: string,
    agentVersion: number,
    inputs: readonly UserInput[],
    queuedIds: readonly string[] = [],
  ): Promise<TurnRecord> {
    return startTurn(this.context, {
      conversation,
      agentId,
      agentVersion,
      inputs,
      queuedIds,
      onAccepted: undefined,
      isNewConversation: false,
      requestKey: null,
    });
  }

  /**
   * A new turn of `appId`: admitted under the app's and the process's turn caps before anything
   * is written (`too_many_turns` otherwise); `open` builds its opening (a start or a resume),
   * which is written at once, or with the first step when the caller waits and watches no events
   * (see `RunOpening`). It runs for the caller, or in the background when the caller asked not
   * to wait.
   */
  async admitAndRun(
    appId: string,
    open: () => Promise<{ opening: RunOpening; agent: AgentDefinition }>,
    options: RunOptions,
  ): Promise<TurnOutcome> {
    const slot = this.context.turns.admit(appId);
    let opened: { opening: RunOpening; agent: AgentDefinition };
    try {
      opened = await open();
      const defers = !options.detach && !options.listener && this.context.settings.deferredOpeningMs > 0;
      if (!defers) await opened.opening.writeNow();
    } catch (error) {
      slot.release();
      throw error;
    }
    const { opening, agent } = opened;
    const unwritten = opening.written ? undefined : opening;
    const kind = opening.resumedCalls === null ? 'start' : 'resume';
    const calls = opening.resumedCalls ?? NO_CALLS;
    if (!options.detach) return this.run(kind, calls, opening.turn, agent, options.listener, slot, unwritten);
    runInBackground(this.context, 'detached turn', () =>
      this.run(kind, calls, opening.turn, agent, options.listener, slot),
    );
    return { turn: opening.turn, replyGroupId: '', text: null, pendingCalls: [] };
  }

  /**
   * Runs the loop for a turn this caller owns, holding `slot` until the loop ends (finished,
   * paused for a client, failed or thrown), then applies any queued input. An `opening` not yet
   * written is known to this process's readers of the conversation meanwhile. `kind` and `calls`
   * (a resume's ledger rows) are for the telemetry around the run.
   */
  private async run(
    kind: TurnRunKind,
    calls: readonly LedgerEntryRecord[],
    turn: TurnRecord,
    agent: AgentDefinition,
    listener: EngineEventListener | undefined,
    slot: TurnSlot,
    opening?: RunOpening,
  ): Promise<TurnOutcome> {
    const openings = this.context.openings;
    if (opening) openings.set(turn.conversationId, opening);
    let outcome: TurnOutcome;
    try {
      outcome = await this.context.telemetry.turnRun(kind, turn, agent, calls, () =>
        runTurn(this.context, turn, agent, listener, opening),
      );
    } finally {
      slot.release();
      if (opening && openings.get(turn.conversationId) === opening) openings.delete(turn.conversationId);
    }
    // Only agents with the `queue` policy ever store input; others skip the extra query.
    if (outcome.turn.status !== 'requires_action' && agent.inputPolicy === 'queue')
      this.drainQueueLater(turn.appId, turn.conversationId);
    return outcome;
  }

  /**
   * Moves a paused turn whose calls are all answered back to running, if this caller wins the
   * resume, and runs it in the background. Returns whether it resumed. The answers were accepted
   * already, so the turn takes its slot even at the cap (see `TurnSlots`).
   */
  async resume(turnId: string, label: string): Promise<boolean> {
    const resumed = await this.context.store.transaction((tx) => beginResume(this.context, tx, turnId));
    if (!resumed) return false;
    const { turn, calls } = resumed;
    const agent = await this.agentForTurn(turn);
    runInBackground(this.context, label, () =>
      this.run('resume', calls, turn, agent, undefined, this.context.turns.take(turn.appId)),
    );
    return true;
  }

  /** `resume`, run for the caller: its outcome, or null when the turn still waits or another resumed it. */
  async resumeNow(turnId: string, listener: EngineEventListener | undefined): Promise<TurnOutcome | null> {
    const resumed = await this.context.store.transaction((tx) => beginResume(this.context, tx, turnId));
    if (!resumed) return null;
    const { turn, calls } = resumed;
    const agent = await this.agentForTurn(turn);
    return this.run('resume', calls, turn, agent, listener, this.context.turns.take(turn.appId));
  }

  /**
   * Runs, in the background, a turn this process just took over from a silent one. It counts as
   * running here even at the cap: the turn was accepted long ago.
   */
  continueTurn(turn: TurnRecord): void {
    const slot = this.context.turns.take(turn.appId);
    // Running here from now on, so the next recovery pass does not take it over a second time.
    this.context.running.set(turn.id, new AbortController());
    runInBackground(this.context, 'continue a turn taken over', async () => {
      let agent: AgentDefinition;
      try {
        agent = await this.agentForTurn(turn);
      } catch (error) {
        slot.release();
        this.context.running.delete(turn.id);
        throw error;
      }
      return this.run('takeover', NO_CALLS, turn, agent, undefined, slot);
    });
  }

  /** The agent definition the turn pinned when it started. */
  agentForTurn(turn: TurnRecord): Promise<AgentDefinition> {
    return this.agentVersions.forTurn(turn);
  }

  /** Starts a turn with queued input if the conversation is idle and has any. */
  drainQueueLater(appId: string, conversationId: string): void {
    runInBackground(this.context, 'drain queued input', async () => {
      const store = this.context.store;
      const queued = await store.queuedInputs.listByConversation(conversationId);
      if (queued.length === 0) return;
      const conversation = await store.conversations.get(appId, conversationId);
      if (!conversation || conversation.activeTurnId) return;
      const agentRecord = await store.agents.getById(conversation.agentId);
      if (!agentRecord) return;
      let turn: TurnRecord;
      try {
        turn = await this.startTurn(
          conversation,
          agentRecord.id,
          agentRecord.version,
          queued.map((entry) => ({
            items: [{ type: 'message' as const, role: 'user' as const, content: entry.content }],
            options: entry.options,
          })),
          queued.map((entry) => entry.id),
        );
      } catch (error) {
        if (error instanceof BatonError && error.code === 'concurrent_update') return; // another process took it
        throw error;
      }
      // Queued input was accepted (202) earlier: its turn is counted, never refused.
      await this.run('start', NO_CALLS, turn, agentRecord.definition, undefined, this.context.turns.take(appId));
    });
  }
}
