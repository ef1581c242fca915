import { sendToConversation } from './message-intake.ts';
import type { ConversationWithActiveTurn } from '../store/store.ts';
import { submitResultsMessage } from './results-message.ts';
import type {
  AgentRecord,
  ClientToolDefinition,
  ContentPart,
  ConversationRecord,
  ItemRecord,
  LedgerEntryRecord,
  TurnOptions,
  TurnRecord,
} from '../domain/records.ts';
import type { ConversationFilter, LedgerFilter } from '../domain/queries.ts';
import type { Page, PageRequest } from '../domain/page.ts';
import { AgentVersions } from './agent-versions.ts';
import { toolForCall } from './call-tool.ts';
import { readConversationState } from './conversation-state.ts';
import { systemClock } from '../domain/clock.ts';
import { forkConversation } from './conversation-fork.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { agentNotFound, conversationNotFound, nothingToCancel } from './engine-errors.ts';
import {
  nowIso,
  runInBackground,
  type EngineContext,
  type EngineLogger,
  type EngineSettings,
} from './engine-context.ts';
import {
  checkToolChoice,
  isHeldResultsOutcome,
  type HeldResultsOutcome,
  type ConversationState,
  type EngineOptions,
  type QueuedOutcome,
  type RunOptions,
  type UserInput,
} from './engine-types.ts';
import { newId as defaultNewId } from '../domain/ids.ts';
import { checkInputItems, type InputItem } from './input-items.ts';
import { resolveOneCall } from './result-submission.ts';
import { checkEnforcedResponseSchemas } from './ledger/enforced-response-schemas.ts';
import { assertValidToolSet } from './tool-schema.ts';
import { closeTurn } from './turn-closing.ts';
import {
  applyDueDeadlines,
  recoverStaleClaims,
  recoverStaleTurns,
  resumeStrandedTurns,
  type DeadlineFollowUps,
} from './deadlines.ts';
import type { CallResult } from './ledger/ledger-transitions.ts';
import { ToolWorkers } from './workers/tool-workers.ts';
import { applyLapsedLeases } from './workers/lapsed-leases.ts';
import { deliverAsyncResults } from './async-results.ts';
import { readResults, refuseStrays, type ToolResultInput } from './ledger/result-intake.ts';
import { NO_APP_TOOLS } from './ports/tool-provider.ts';
import { NO_TELEMETRY } from './ports/telemetry.ts';
import { decideApproval, type ApprovalDecision } from './approvals.ts';
import type { TurnOutcome } from './turn-runner.ts';
import { TurnDispatch } from './turn-dispatch.ts';
import { ResponseChains } from './responses/response-chains.ts';
import { ChatExchanges } from './chat/chat-exchanges.ts';
import { listMessagePage } from './message-pages.ts';
import { LedgerChangeFeed, type LedgerChangeFeedSettings } from './ledger/ledger-change-feed.ts';
import { SessionRuns } from './sessions/session-runs.ts';
import { TurnSlots } from './turn-slots.ts';
import { writeUnwrittenOpening } from './run-opening.ts';
import { openTurn } from './turn-start.ts';
import {
  DataLifecycle,
  type DeleteOptions,
  type RetentionOptions,
  type RetentionRun,
} from './lifecycle/data-lifecycle.ts';
import type { RowCounts } from '../domain/lifecycle.ts';

export * from './engine-types.ts';

const silentLogger: EngineLogger = { warn: () => {}, error: () => {} };
const MAX_CONFLICT_RETRIES = 3;

/**
 * Baton's engine: conversations, turns, the agent loop and the pending-call ledger. Faces call
 * these methods and translate; no face writes to the store or decides a rule itself.
 */
export class Engine {
  private readonly context: EngineContext;

  constructor(options: EngineOptions) {
    const settings: EngineSettings = {
      maxModelRetries: 2,
      maxInvalidCallRounds: 2,
      staleTurnSeconds: 15,
      maxTurnTakeovers: 2,
      turnsPerApp: 100,
      turnsTotal: 400,
      deferredOpeningMs: 250,
      ...options.settings,
    };
    this.context = {
      store: options.store,
      models: options.models,
      tools: options.tools ?? NO_APP_TOOLS,
      telemetry: options.telemetry ?? NO_TELEMETRY,
      clock: options.clock ?? systemClock,
      newId: options.newId ?? defaultNewId,
      logger: options.logger ?? silentLogger,
      settings,
      running: new Map(),
      background: new Set(),
      turns: new TurnSlots({ perApp: settings.turnsPerApp, total: settings.turnsTotal }),
      openings: new Map(),
    };
    this.dispatch = new TurnDispatch(this.context, new AgentVersions(options.store));
    this.responses = new ResponseChains(this.context, this);
    this.sessions = new SessionRuns(this.context, this);
    this.chats = new ChatExchanges(this.context, this);
    this.lifecycle = new DataLifecycle(this.context, this);
    this.workers = new ToolWorkers(this.context, {
      checkResult: (entry, result) => this.checkResultSchema(entry, result),
      resume: (turnId) => this.dispatch.resume(turnId, 'resume after a worker result'),
    });
  }

  /** Starting, running and resuming turns, and draining queued input. */
  private readonly dispatch: TurnDispatch;

  /** Responses: chains of request/response exchanges over conversations (see `ResponseChains`). */
  readonly responses: ResponseChains;

  /** Sessions: conversations with client-chosen ids, variables and a lock (see `SessionRuns`). */
  readonly sessions: SessionRuns;

  /** Chat Completions: stateless clients' transcripts matched to conversations (see `ChatExchanges`). */
  readonly chats: ChatExchanges;

  /** Tool workers: claims, leases and fenced results of worker calls (see `ToolWorkers`). */
  readonly workers: ToolWorkers;

  /** Data lifecycle: exports, the audit trail, retention (see `DataLifecycle`). */
  readonly lifecycle: DataLifecycle;

  /** The engine's clock's time (tests move it). */
  now(): Date {
    return this.context.clock.now();
  }

  // ---- conversations -------------------------------------------------------------------------

  async createConversation(
    appId: string,
    agentName: string,
    metadata: Record<string, string>,
  ): Promise<ConversationRecord> {
    const conversation = this.newConversation(appId, await this.agentNamed(appId, agentName), metadata);
    await this.context.store.conversations.insert(conversation);
    return conversation;
  }

  private async agentNamed(appId: string, agentName: string): Promise<AgentRecord> {
    const agent = await this.context.store.agents.get(appId, agentName);
    if (!agent) {
      throw agentNotFound(agentName);
    }
    return agent;
  }

  /** A conversation record not yet written. */
  private newConversation(appId: string, agent: AgentRecord, metadata: Record<string, string>): ConversationRecord {
    const now = nowIso(this.context);
    return {
      id: this.context.newId('thread'),
      appId,
      agentId: agent.id,
      agentName: agent.name,
      version: 0,
      activeTurnId: null,
      headTurnId: null,
      metadata,
      createdAt: now,
      updatedAt: now,
    };
  }

  /**
   * Creates a conversation and starts its first turn in one transaction, so input the engine
   * refuses leaves nothing behind (the Responses face's requests without a previous response).
   */
  async startConversation(
    appId: string,
    agentName: string,
    metadata: Record<string, string>,
    input: UserInput,
    options: RunOptions,
  ): Promise<TurnOutcome> {
    assertValidToolSet(input.options.tools, 'tools');
    checkInputItems(input.items);
    const agentRecord = await this.agentNamed(appId, agentName);
    checkToolChoice(agentRecord.definition, input.options);
    const conversation = this.newConversation(appId, agentRecord, metadata);
    return this.dispatch.admitAndRun(
      appId,
      async () => ({
        opening: openTurn(this.context, {
          conversation,
          agentId: agentRecord.id,
          agentVersion: agentRecord.version,
          inputs: [input],
          queuedIds: [],
          onAccepted: options.onAccepted,
          isNewConversation: true,
          requestKey: null,
        }),
        agent: agentRecord.definition,
      }),
      options,
    );
  }

  /** A new conversation with the history of `conversationId` up to item `uptoSeq` (see `forkConversation`). */
  async forkConversation(appId: string, conversationId: string, uptoSeq: number): Promise<ConversationRecord> {
    return forkConversation(this.context, await this.getConversation(appId, conversationId), uptoSeq);
  }

  /**
   * Deletes a conversation and all it holds, in one transaction: a paused turn is closed and every
   * pending call cancelled first, so no worker, webhook or deadline acts on them. A running turn is
   * cancelled too, unless `options.whileRunning` is `refuse` (what the faces ask: 409
   * `conversation_running` naming the turn). Returns the rows removed, by table.
   */
  async deleteConversation(
    appId: string,
    conversationId: string,
    actor: string | null,
    options: DeleteOptions = {},
  ): Promise<RowCounts> {
    return this.lifecycle.deleteConversation(appId, conversationId, actor, options);
  }

  async getConversation(appId: string, conversationId: string): Promise<ConversationRecord> {
    await writeUnwrittenOpening(this.context.openings, conversationId);
    const conversation = await this.context.store.conversations.get(appId, conversationId);
    if (!conversation) throw conversationNotFound(conversationId);
    return conversation;
  }

  /** The conversation with its active turn and that turn's calls, in one read: for a request that answers the turn. */
  private async getConversationWithActiveTurn(
    appId: string,
    conversationId: string,
  ): Promise<ConversationWithActiveTurn> {
    await writeUnwrittenOpening(this.context.openings, conversationId);
    const found = await this.context.store.conversations.getWithActiveTurn(appId, conversationId);
    if (!found) throw conversationNotFound(conversationId);
    return found;
  }

  /**
   * The conversation with its derived status: `pending` comes from the ledger, never a stored flag.
   * Read in two statements when it has an active turn, not joined: most conversations asked about
   * are idle, and the joined read makes a row of every turn and ledger column (57, against 10),
   * which cost more than it saved (`getConversationWithActiveTurn` is for requests that answer a
   * paused turn).
   */
  async getConversationState(appId: string, conversationId: string): Promise<ConversationState> {
    return readConversationState(this.context, await this.getConversation(appId, conversationId));
  }

  /** An app's conversations, newest first, each with its derived status. */
  async listConversations(filter: ConversationFilter, page: PageRequest): Promise<Page<ConversationState>> {
    const conversations = await this.context.store.conversations.list(filter, page);
    return {
      data: await Promise.all(
        conversations.data.map((conversation) => readConversationState(this.context, conversation)),
      ),
      nextCursor: conversations.nextCursor,
    };
  }

  async listItems(appId: string, conversationId: string, page: PageRequest): Promise<Page<ItemRecord>> {
    await this.getConversation(appId, conversationId);
    return this.context.store.items.list(conversationId, page);
  }

  /** A page of whole messages (item groups), oldest first, after an opaque cursor. */
  async listMessages(
    appId: string,
    conversationId: string,
    limit: number,
    after: string | null,
  ): Promise<{ items: ItemRecord[]; nextCursor: string | null }> {
    await this.getConversation(appId, conversationId);
    return listMessagePage(this.context.store, conversationId, limit, after);
  }

  /** Ledger changes of an app as they happen, read from the store on notices (changes by other processes too). */
  ledgerChanges(settings?: LedgerChangeFeedSettings, onError?: (error: unknown) => void): LedgerChangeFeed {
    return new LedgerChangeFeed(
      this.context.store.ledger,
      this.context.clock,
      settings,
      onError,
      this.context.store.signals,
    );
  }

  async getTurn(appId: string, turnId: string): Promise<TurnRecord> {
    const turn = await this.context.store.turns.get(turnId);
    if (!turn || turn.appId !== appId) throw new BatonError('turn_not_found', `No turn found with id '${turnId}'.`);
    return turn;
  }

  // ---- input ---------------------------------------------------------------------------------

  /**
   * Starts a turn with new user input. While calls are pending the input is refused with the
   * pending ids (policy `reject`) or stored and applied once they resolve (policy `queue`).
   */
  async sendMessage(
    appId: string,
    conversationId: string,
    userInput: UserInput,
    userOptions: RunOptions,
  ): Promise<TurnOutcome | QueuedOutcome> {
    assertValidToolSet(userInput.options.tools, 'tools');
    let input = userInput;
    let options = userOptions;
    let earlierCalls = new Set<string>();
    if (userInput.asyncResults && userInput.asyncResults.length > 0) {
      const read = await this.getConversationWithActiveTurn(appId, conversationId);
      const intake = await readResults(this.context, read, userInput.asyncResults);
      refuseStrays(read.conversation, intake);
      const delivery = deliverAsyncResults(this.context, intake.asynchronous, userOptions);
      input = { items: [...delivery.items, ...userInput.items], options: userInput.options };
      options = delivery.options;
      earlierCalls = delivery.callIds;
    }
    checkInputItems(input.items, undefined, earlierCalls);
    for (let attempt = 1; ; attempt++) {
      try {
        const state = await this.getConversationState(appId, conversationId);
        return await sendToConversation(this.context, this.dispatch, state, input, options);
      } catch (error) {
        // A lost compare-and-set means someone changed the thread between our read and write:
        // re-read once more so the caller gets the precise reason (busy, pending) instead.
        if (error instanceof BatonError && error.code === 'concurrent_update' && attempt < MAX_CONFLICT_RETRIES)
          continue;
        throw error;
      }
    }
  }

  // ---- results -------------------------------------------------------------------------------

  /**
   * Answers every pending call of the conversation in one message, then resumes the turn.
   * `followUp` messages (new user input sent with the results) are added right after them.
   */
  async submitResults(
    appId: string,
    conversationId: string,
    results: ToolResultInput[],
    options: RunOptions,
    followUp: readonly InputItem[] = [],
    optionsPatch: Partial<TurnOptions> = {},
  ): Promise<TurnOutcome> {
    const outcome = await submitResultsMessage(
      this.context,
      this.dispatch,
      await this.getConversationWithActiveTurn(appId, conversationId),
      results,
      options,
      followUp,
      optionsPatch,
    );
    if (isHeldResultsOutcome(outcome)) throw new Error('unreachable: results are held only when asked to');
    return outcome;
  }

  /**
   * Answers some or all of the pending calls in one message (the Threads face). All answered:
   * the turn resumes, as `submitResults`. Some: when the agent holds partial results (its
   * `partialResults`, `hold` by default) they are kept in the ledger and the outcome names the
   * calls still pending; the turn resumes with every result once the last one arrives.
   */
  async submitResultsOrHold(
    appId: string,
    conversationId: string,
    results: ToolResultInput[],
    options: RunOptions,
  ): Promise<TurnOutcome | HeldResultsOutcome> {
    const read = await this.getConversationWithActiveTurn(appId, conversationId);
    return submitResultsMessage(this.context, this.dispatch, read, results, options, [], {}, true);
  }

  /**
   * Answers one call through the ledger. When it was the last pending call of its turn, the turn
   * resumes here and its outcome is returned; otherwise `outcome` is null.
   */
  async submitCallResult(
    appId: string,
    callId: string,
    result: { output: ContentPart[]; isError: boolean },
    options: RunOptions,
  ): Promise<{ entry: LedgerEntryRecord; outcome: TurnOutcome | null }> {
    return this.resumeAfter(
      await resolveOneCall(this.context, appId, callId, result, options.submission, (entry) =>
        this.checkResultSchema(entry, result),
      ),
      options,
    );
  }

  /** Refuses a result its call's tool does not accept (an enforced response schema); errors pass. */
  private async checkResultSchema(entry: LedgerEntryRecord, result: CallResult): Promise<void> {
    if (result.isError) return;
    const turn = await this.getTurn(entry.appId, entry.turnId);
    await checkEnforcedResponseSchemas(this.context, turn, await this.dispatch.agentForTurn(turn), [
      { entry, result: { callId: entry.id, ...result, param: 'content' } },
    ]);
  }

  /** Approves (running the tool) or denies an approval row; resumes the turn when nothing is left pending. */
  async decideApproval(
    appId: string,
    callId: string,
    decision: ApprovalDecision,
    options: RunOptions,
  ): Promise<{ entry: LedgerEntryRecord; outcome: TurnOutcome | null }> {
    const entry = await this.getCall(appId, callId);
    const turn = await this.getTurn(appId, entry.turnId);
    const agent = await this.dispatch.agentForTurn(turn);
    const tools = await this.context.tools.listTools(appId, agent);
    const resolved = await decideApproval(
      this.context,
      entry,
      tools.find((tool) => tool.name === entry.toolName),
      decision,
      options.submission,
      turn.options.useToolFakes === true,
    );
    return this.resumeAfter(resolved, options);
  }

  private async resumeAfter(
    entry: LedgerEntryRecord,
    options: RunOptions,
  ): Promise<{ entry: LedgerEntryRecord; outcome: TurnOutcome | null }> {
    // Checked in a transaction of its own, after the resolution committed, so that of two
    // concurrent last answers at least the later one sees nothing pending and resumes.
    return { entry, outcome: await this.dispatch.resumeNow(entry.turnId, options.listener) };
  }

  async getCall(appId: string, callId: string): Promise<LedgerEntryRecord> {
    const entry = await this.context.store.ledger.get(appId, callId);
    if (!entry) throw new BatonError('tool_call_not_found', `No tool call found with id '${callId}'.`);
    return entry;
  }

  /** A call with the definition of the tool it was made to (for answer forms and typed clients). */
  async getCallTool(appId: string, callId: string): Promise<{ entry: LedgerEntryRecord; tool: ClientToolDefinition }> {
    const entry = await this.getCall(appId, callId);
    const turn = await this.getTurn(appId, entry.turnId);
    return { entry, tool: await toolForCall(this.context, entry, turn, await this.dispatch.agentForTurn(turn)) };
  }

  listCalls(filter: LedgerFilter, page: PageRequest): Promise<Page<LedgerEntryRecord>> {
    return this.context.store.ledger.list(filter, page);
  }

  // ---- cancel, deadlines, recovery ----------------------------------------------------------

  /** Cancels the running or paused turn; pending calls get synthetic results so history stays valid. */
  async cancel(
    appId: string,
    conversationId: string,
    actor: string | null,
  ): Promise<{ turn: TurnRecord; cancelledCalls: LedgerEntryRecord[] }> {
    const conversation = await this.getConversation(appId, conversationId);
    if (!conversation.activeTurnId) {
      throw nothingToCancel(conversationId, false);
    }
    const closed = await closeTurn(this.context, conversation.activeTurnId, {
      status: 'cancelled',
      error: null,
      syntheticResult: 'Cancelled: the turn was cancelled before this tool call received a result.',
      actor,
    });
    if (!closed) {
      throw nothingToCancel(conversationId, true);
    }
    this.dispatch.drainQueueLater(appId, conversationId);
    return { turn: closed.turn, cancelledCalls: closed.closedCalls };
  }

  /**
   * Applies every app's retention policy now, at the engine clock's time, to completion in bounded
   * batches (see `applyRetention` in lifecycle/retention.ts). The sweeper's leader starts runs on
   * its own (`lifecycle.startRetentionWhenDue`); tests call this after moving the clock.
   */
  applyRetention(options?: RetentionOptions): Promise<RetentionRun> {
    return this.lifecycle.applyRetention(options);
  }

  /** Applies due deadlines (see `deadlines.ts`); resumes and queued input run in the background. */
  async applyDueDeadlines(limit = 100): Promise<number> {
    return applyDueDeadlines(this.context, limit, this.deadlineFollowUps());
  }

  private deadlineFollowUps(): DeadlineFollowUps {
    return {
      resume: (turnId) =>
        runInBackground(this.context, 'resume after expiry', () => this.dispatch.resume(turnId, 'resume after expiry')),
      drainQueue: (appId, conversationId) => this.dispatch.drainQueueLater(appId, conversationId),
    };
  }

  /** Worker calls whose lease lapsed: waiting for a worker again, or, attempts spent, resolved per their policy. */
  applyLapsedLeases(limit = 100): Promise<number> {
    return applyLapsedLeases(this.context, limit, this.deadlineFollowUps());
  }

  /** Approvals whose tool ran in a process that died: recorded as unknown outcomes, their turns resumed. */
  recoverStaleClaims(limit = 100, staleAfterSeconds = this.context.settings.staleTurnSeconds): Promise<number> {
    return recoverStaleClaims(this.context, limit, staleAfterSeconds, (turnId) =>
      this.dispatch.resume(turnId, 'resume after a recovered approval'),
    );
  }

  /** Takes over (or fails) turns left `in_progress` by a process that died; taken ones go on here. */
  recoverStaleTurns(limit = 100, staleAfterSeconds = this.context.settings.staleTurnSeconds): Promise<number> {
    return recoverStaleTurns(this.context, limit, staleAfterSeconds, (turn) => this.dispatch.continueTurn(turn));
  }

  /**
   * Resumes turns whose calls were all answered but whose resume never ran (the process died
   * between the last answer and the resume). `graceSeconds` leaves live resumes alone.
   */
  resumeStrandedTurns(
    // A resume that has not started by the time a silent turn counts as orphaned never will.
    graceSeconds = Math.min(30, this.context.settings.staleTurnSeconds),
    limit = 100,
  ): Promise<number> {
    return resumeStrandedTurns(this.context, graceSeconds, limit, (turnId) =>
      this.dispatch.resume(turnId, 'resume stranded turn'),
    );
  }

  /** Turns whose loop runs in this process now, of one app or of all (under `turnsPerApp`, `turnsTotal`). */
  runningTurns(appId?: string): number {
    return this.context.turns.running(appId);
  }

  /** Waits for background work (resumes, queued input) to settle; used on shutdown and in tests. */
  async idle(): Promise<void> {
    while (this.context.background.size > 0) await Promise.allSettled([...this.context.background]);
  }
}
