import { BatonError } from '../../domain/errors/baton-error.ts';
import type {
  ConversationRecord,
  LedgerEntryRecord,
  TurnOptions,
  TurnRecord,
  TurnUsage,
} from '../../domain/records.ts';
import type { EngineContext } from '../engine-context.ts';
import { conversationBusy } from '../engine-errors.ts';
import { checkToolChoice, isQueuedOutcome, type RunOptions } from '../engine-types.ts';
import type { EngineEventListener } from '../events.ts';
import { checkInputItems, type InputItem } from '../input-items.ts';
import type { SubmissionActor } from '../ledger/ledger-transitions.ts';
import type { ToolResultInput } from '../ledger/result-intake.ts';
import type { ChainEngine } from '../responses/chain-engine.ts';
import { assertValidToolSet } from '../tool-schema.ts';
import type { TurnOutcome } from '../turn-runner.ts';
import { transcriptTail } from './chat-transcript.ts';
import { withResponsesDeadline } from '../responses/response-deadlines.ts';

/** One Chat Completions request: the client's whole transcript, and what to run it with. */
export interface ChatExchangeRequest {
  appId: string;
  submission: SubmissionActor;
  /** The agent, or `provider:model`, the request names. */
  model: string;
  /** Creates (or finds) the implicit agent of a `provider:model` id and returns its name. */
  ensureModelAgent(model: string): Promise<string>;
  /** The transcript in engine items, with where each sits in the request (`messages[3]`), for errors. */
  transcript: { items: InputItem[]; params: string[] };
  /**
   * Approvals the transcript's last assistant message reports as waiting (the face reads them
   * from its own notice): the request then goes on in the conversation those approvals belong to.
   */
  awaitedApprovalIds: readonly string[];
  /** The turn settings of the request, with its defaults (a new conversation's turn). */
  options: TurnOptions;
  /** Only the settings the request states: what a resumed turn takes over. */
  statedOptions: Partial<TurnOptions>;
  /** Kept on a new conversation. */
  metadata: Record<string, string>;
  listener?: EngineEventListener;
}

/**
 * How a request was applied: `started` a conversation with the transcript as its history,
 * `answered` the calls a paused run waits for (resolving their ledger rows), `continued` a
 * conversation after its approvals were decided, or left it `unchanged` (it still waits).
 */
export type ChatExchangeKind = 'started' | 'answered' | 'continued' | 'unchanged';

export interface ChatExchangeOutcome {
  kind: ChatExchangeKind;
  conversationId: string;
  /** The conversation's turn as the request leaves it. */
  turn: TurnRecord;
  /** Calls the client executes, in call order: pending ledger rows of kind `client`. */
  clientCalls: LedgerEntryRecord[];
  /** Server calls waiting for a person's decision. */
  approvals: LedgerEntryRecord[];
  /** The tokens this request spent (a resumed turn's earlier steps are not counted again). */
  usage: TurnUsage;
}

const NO_USAGE: TurnUsage = { inputTokens: 0, outputTokens: 0 };

/**
 * Chat Completions over the engine. The client keeps the transcript and sends all of it each
 * time; Baton keeps the conversations, so a call it made is a ledger row like any other and a
 * paused run resumes where it stopped. A request is matched to its conversation by what only
 * Baton minted: the ids of the calls its tool results answer, or of the approvals its last
 * assistant message reports. Anything else starts a conversation with the transcript as history.
 */
export class ChatExchanges {
  constructor(
    private readonly context: EngineContext,
    private readonly engine: ChainEngine,
  ) {}

  async exchange(request: ChatExchangeRequest): Promise<ChatExchangeOutcome> {
    const { items, params } = request.transcript;
    const paramOf = (index: number) => params[index] ?? 'messages';
    // The transcript must stand on its own whatever the request continues: a provider would
    // refuse it later, where the cause is much harder to see.
    checkInputItems(items, paramOf);
    const tail = transcriptTail(items);
    const answers = await this.readAnswers(request, tail.answers, paramOf);
    const followUp = tail.followUp.map((index) => items[index]).filter((item) => item !== undefined);
    const paused = answers.find((answer) => answer.entry?.state === 'pending');
    if (paused?.entry) return this.answer(request, paused.entry.conversationId, answers, followUp);
    const approval = await this.awaitedApproval(request);
    if (approval) return this.continueAfterApproval(request, approval, followUp);
    return this.start(request);
  }

  /**
   * The tool results at the end of the transcript, each with its ledger row when Baton made the
   * call. A result for a call Baton runs itself (a server tool, an approval) is refused: nothing
   * the client sends can stand in for it.
   */
  private async readAnswers(
    request: ChatExchangeRequest,
    positions: readonly number[],
    paramOf: (index: number) => string,
  ): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (const index of positions) {
      const item = request.transcript.items[index];
      if (item?.type !== 'function_call_output') continue;
      const entry = await this.context.store.ledger.get(request.appId, item.callId);
      const param = paramOf(index);
      if (entry?.state === 'pending' && (entry.kind === 'approval' || entry.kind === 'server'))
        throw serverCallAnswered(param, entry);
      // Asynchronous calls never reach a chat client as tool_calls; their results go through the ledger.
      const owned = entry && entry.kind === 'client' ? entry : undefined;
      answers.push({
        entry: owned,
        result: { callId: item.callId, output: item.output, isError: item.isError, param },
      });
    }
    return answers;
  }

  /**
   * The results answer calls a paused run of `conversationId` waits for: they resolve those ledger
   * rows (submitted by the request's key) and the run resumes. Results for calls of that run that
   * were resolved meanwhile (through the ledger) are left out: the stored result stands.
   */
  private async answer(
    request: ChatExchangeRequest,
    conversationId: string,
    answers: readonly Answer[],
    followUp: InputItem[],
  ): Promise<ChatExchangeOutcome> {
    const { appId } = request;
    const conversation = await this.engine.getConversation(appId, conversationId);
    await this.checkSameAgent(request, conversation);
    const state = await this.engine.getConversationState(appId, conversationId);
    const before = state.activeTurn?.usage ?? NO_USAGE;
    const settled = (answer: Answer) =>
      answer.entry !== undefined && answer.entry.conversationId === conversationId && answer.entry.state !== 'pending';
    const results = answers.filter((answer) => !settled(answer)).map((answer) => answer.result);
    const outcome = await this.engine.submitResults(
      appId,
      conversationId,
      results,
      this.runOptions(request),
      followUp,
      request.statedOptions,
    );
    return outcomeOf('answered', conversationId, outcome, before);
  }

  /** The first approval the transcript's last assistant message names, if Baton knows it. */
  private async awaitedApproval(request: ChatExchangeRequest): Promise<LedgerEntryRecord | undefined> {
    for (const id of request.awaitedApprovalIds) {
      const entry = await this.context.store.ledger.get(request.appId, id);
      if (entry?.kind === 'approval') return entry;
    }
    return undefined;
  }

  /**
   * The client goes on after being told an approval waits. While the run still waits (for the
   * approval, or for client calls the model made once it was decided), nothing is written and the
   * reply says what it waits for; once the run is done, the new input continues its conversation,
   * whose history holds the approved call's result.
   */
  private async continueAfterApproval(
    request: ChatExchangeRequest,
    approval: LedgerEntryRecord,
    followUp: InputItem[],
  ): Promise<ChatExchangeOutcome> {
    const { appId } = request;
    const conversation = await this.context.store.conversations.get(appId, approval.conversationId);
    // The conversation was deleted since: the transcript is all there is, as for any other request.
    if (!conversation) return this.start(request);
    await this.checkSameAgent(request, conversation);
    const state = await this.engine.getConversationState(appId, conversation.id);
    if (state.status === 'running' && state.activeTurn) throw conversationBusy(conversation.id, state.activeTurn.id);
    if (state.status === 'pending' && state.activeTurn) {
      return {
        kind: 'unchanged',
        conversationId: conversation.id,
        turn: state.activeTurn,
        ...splitPending(state.pendingCalls),
        usage: NO_USAGE,
      };
    }
    if (followUp.length === 0) {
      throw new BatonError(
        'empty_input',
        'The messages end with the assistant message that reported the approval: add a user message to go on.',
        { param: 'messages', data: { conversation_id: conversation.id } },
      );
    }
    const outcome = await this.engine.sendMessage(
      appId,
      conversation.id,
      { items: followUp, options: withResponsesDeadline(request.options, this.context.settings) },
      { ...this.runOptions(request), allowQueue: false },
    );
    if (isQueuedOutcome(outcome)) throw new Error('unreachable: input is never queued with allowQueue false');
    return outcomeOf('continued', conversation.id, outcome, NO_USAGE);
  }

  /** A new conversation whose history is the transcript; its last messages are what the model answers. */
  private async start(request: ChatExchangeRequest): Promise<ChatExchangeOutcome> {
    const { appId, model, options } = request;
    // The engine checks all of this again; checking first keeps a refused request from leaving
    // an implicit `model:` agent behind.
    assertValidToolSet(options.tools, 'tools');
    const existing = await this.context.store.agents.get(appId, model);
    checkToolChoice(existing?.definition ?? { tools: [] }, options);
    const agentName = await this.agentNameFor(request, model);
    // A chat client is as stateless as a Responses one: calls it walks away from expire alike.
    const outcome = await this.engine.startConversation(
      appId,
      agentName,
      request.metadata,
      { items: request.transcript.items, options: withResponsesDeadline(options, this.context.settings) },
      this.runOptions(request),
    );
    return outcomeOf('started', outcome.turn.conversationId, outcome, NO_USAGE);
  }

  private runOptions(request: ChatExchangeRequest): RunOptions {
    return {
      submission: request.submission,
      allowQueue: false,
      ...(request.listener ? { listener: request.listener } : {}),
    };
  }

  /** A conversation keeps its agent: the request must name it (or the model behind it) again. */
  private async checkSameAgent(request: ChatExchangeRequest, conversation: ConversationRecord): Promise<void> {
    if (request.model === conversation.agentName) return;
    if ((await this.agentNameFor(request, request.model)) === conversation.agentName) return;
    throw new BatonError(
      'model_mismatch',
      `Model '${request.model}' differs from the model of conversation '${conversation.id}' ('${conversation.agentName}'), ` +
        `whose calls the request answers: a conversation keeps its agent.`,
      {
        param: 'model',
        data: { model: request.model, conversation_id: conversation.id, conversation_agent: conversation.agentName },
      },
    );
  }

  /** The agent a `model` names: an agent of the app, else a `provider:model` behind an implicit agent. */
  private async agentNameFor(request: ChatExchangeRequest, model: string): Promise<string> {
    const agent = await this.context.store.agents.get(request.appId, model);
    if (agent) return agent.name;
    if (!model.includes(':')) {
      throw new BatonError('model_not_found', `The model '${model}' does not exist.`, {
        param: 'model',
        data: { model },
      });
    }
    try {
      return await request.ensureModelAgent(model);
    } catch (error) {
      if (error instanceof BatonError && error.code === 'invalid_model')
        throw new BatonError('model_not_found', error.message, { param: 'model' });
      throw error;
    }
  }
}

interface Answer {
  /** The ledger row of a client call Baton made, when the result answers one. */
  entry: LedgerEntryRecord | undefined;
  result: ToolResultInput;
}

function serverCallAnswered(param: string, entry: LedgerEntryRecord): BatonError {
  const awaitingApproval = entry.kind === 'approval';
  return new BatonError(
    'server_executed_call',
    `${param} answers call '${entry.id}' (tool '${entry.toolName}'), which Baton executes itself` +
      `${awaitingApproval ? ' once a person approves it' : ''}; it needs no result.`,
    {
      param: `${param}.tool_call_id`,
      details: { call_id: entry.id },
      data: { call_id: entry.id, tool_name: entry.toolName, awaiting_approval: awaitingApproval },
    },
  );
}

function splitPending(pending: readonly LedgerEntryRecord[]): Pick<ChatExchangeOutcome, 'clientCalls' | 'approvals'> {
  const byCallOrder = [...pending].sort((a, b) => a.callIndex - b.callIndex);
  return {
    clientCalls: byCallOrder.filter((entry) => entry.kind === 'client' && entry.state === 'pending'),
    approvals: byCallOrder.filter((entry) => entry.kind === 'approval' && entry.state === 'pending'),
  };
}

function outcomeOf(
  kind: ChatExchangeKind,
  conversationId: string,
  outcome: TurnOutcome,
  before: TurnUsage,
): ChatExchangeOutcome {
  return {
    kind,
    conversationId,
    turn: outcome.turn,
    ...splitPending(outcome.turn.status === 'requires_action' ? outcome.pendingCalls : []),
    usage: usageSince(outcome.turn.usage, before),
  };
}

/** The usage a turn added since `before` (a resumed turn's total includes its earlier steps). */
function usageSince(total: TurnUsage, before: TurnUsage): TurnUsage {
  const usage: TurnUsage = {
    inputTokens: Math.max(0, total.inputTokens - before.inputTokens),
    outputTokens: Math.max(0, total.outputTokens - before.outputTokens),
  };
  if (total.cachedInputTokens !== undefined)
    usage.cachedInputTokens = Math.max(0, total.cachedInputTokens - (before.cachedInputTokens ?? 0));
  if (total.reasoningTokens !== undefined)
    usage.reasoningTokens = Math.max(0, total.reasoningTokens - (before.reasoningTokens ?? 0));
  return usage;
}
