import { BatonError } from '../../domain/errors/baton-error.ts';
import type {
  ClientToolDefinition,
  ItemRecord,
  JsonObject,
  ResponseRecord,
  TurnOptions,
} from '../../domain/records.ts';
import type { SubmissionActor } from '../ledger/ledger-transitions.ts';
import { AgentVersions } from '../agent-versions.ts';
import type { EngineContext } from '../engine-context.ts';
import { checkToolChoice, type RunOptions } from '../engine-types.ts';
import type { EngineEventListener } from '../events.ts';
import { checkInputItems, type InputItem } from '../input-items.ts';
import { assertValidToolSet } from '../tool-schema.ts';
import type { ChainEngine } from './chain-engine.ts';
import { ConnectionResponseCache, type ConnectionOwner, type ConnectionResponses } from './connection-responses.ts';
import { refuseOutputsForServerCalls, refuseWhileApprovalsPending, splitAnswer } from './continuation-rules.ts';
import { asInputItem, resolveReferences, type ResolvedInput, type ResponseInput } from './item-references.ts';
import { withResponsesDeadline } from './response-deadlines.ts';
import { isInProgress, loadResponseState, type ResponseState, type TurnAgent } from './response-state.ts';
import { isHiddenItem, loadServerCalls, type ServerCallIndex } from './server-call-index.ts';

/** Past the WebSocket connection limit (60 min) with a margin: no `store: false` response is in use after it. */
const ABANDONED_AFTER_SECONDS = 65 * 60;
const HISTORY_PAGE = 500;

/** The start of a response, before its turn runs: what a streaming face opens its stream with. */
export interface ResponseStart {
  id: string;
  createdAt: string;
  echo: JsonObject;
  previousResponseId: string | null;
}

/** A request that creates a response: start a conversation, or continue one from a response. */
export interface CreateResponse {
  appId: string;
  submission: SubmissionActor;
  previousResponseId: string | null;
  /** The agent or `provider:model` the request names; required without a previous response. */
  model: string | undefined;
  /** Creates (or finds) the implicit agent of a `provider:model` id and returns its name. */
  ensureModelAgent(model: string): Promise<string>;
  input: ResponseInput;
  /** Tools declared on the request (already in engine form). */
  tools: readonly ClientToolDefinition[];
  /** The turn settings of the request, with its defaults. */
  options: TurnOptions;
  /** Only the settings the request states, which a resumed turn takes over. */
  statedOptions: Partial<TurnOptions>;
  /** `store: false`: readable by nobody, continuable only by its connection, purged once done. */
  stored: boolean;
  /** Return once the input is accepted; the turn runs in the background. */
  detach: boolean;
  /** The face's own fields kept with the response, from the previous response and the agent. */
  echo(previous: ResponseRecord | null, agentName: string): JsonObject;
  /** Streaming: called once the response has an id, before its turn runs; returns the event listener. */
  openStream?(start: ResponseStart): EngineEventListener;
  /** A WebSocket connection's `store: false` responses, which only it may continue. */
  connection?: ConnectionResponses;
}

/**
 * Responses over the engine: each request/response exchange is a record delimiting a span of its
 * conversation's items, and a chain of them is a conversation. This owns the rules of such
 * chains: which response may be continued (the latest, not one already continued, not one still
 * running), answering a paused turn with outputs, branching from an earlier response into a new
 * conversation, and the disposal of `store: false` conversations.
 */
export class ResponseChains {
  /** Agent versions never change once written, so the ones responses are rendered with are kept in memory. */
  private readonly agentVersions: AgentVersions;
  private readonly agentOf: TurnAgent;

  constructor(
    private readonly context: EngineContext,
    private readonly engine: ChainEngine,
  ) {
    this.agentVersions = new AgentVersions(context.store);
    // A response outlives its agent (deleted, or its app's versions purged): it is still readable.
    this.agentOf = (turn) => this.agentVersions.forTurn(turn).catch(() => null);
  }

  /** A response a request may continue: stored, or created by this WebSocket connection. */
  async findContinuable(appId: string, id: string, connection?: ConnectionResponses): Promise<ResponseRecord> {
    const record = await this.context.store.responses.get(appId, id);
    if (!record || !(record.stored || connection?.has(id))) {
      throw new BatonError('previous_response_not_found', `Previous response '${id}' was not found.`, {
        param: 'previous_response_id',
        data: { response_id: id },
      });
    }
    return record;
  }

  /** Creates a response and runs its turn (unless detached); returns the response as it stands. */
  async create(incoming: CreateResponse): Promise<ResponseState> {
    const request: CreateResponse = {
      ...incoming,
      options: withResponsesDeadline(incoming.options, this.context.settings),
    };
    const { appId } = request;
    const store = this.context.store;
    const input = await resolveReferences(store, appId, request.input);
    const previous = request.previousResponseId
      ? await this.findContinuable(appId, request.previousResponseId, request.connection)
      : null;
    const conversation = previous ? await this.engine.getConversation(appId, previous.conversationId) : null;

    let agentName: string;
    if (previous && conversation) {
      agentName = conversation.agentName;
      const model = request.model;
      if (model && model !== previous.echo['model'] && (await this.agentNameFor(request, model)) !== agentName) {
        throw new BatonError(
          'model_mismatch',
          `Model '${model}' differs from the model of previous response '${previous.id}' ('${String(previous.echo['model'])}'): ` +
            `a conversation keeps its agent.`,
          { param: 'model', data: { model, response_id: previous.id, previous_model: String(previous.echo['model']) } },
        );
      }
      await refuseOutputsForServerCalls(store, appId, input);
    } else {
      if (!request.model) {
        throw new BatonError('missing_model', 'A model is required to start a conversation.', { param: 'model' });
      }
      // The engine checks all of this again; checking first keeps a refused request from leaving
      // an implicit `model:` agent behind.
      assertValidToolSet(request.tools, 'tools');
      checkInputItems(input.items, (index) => input.params[index] ?? 'input');
      const existing = await store.agents.get(appId, request.model);
      checkToolChoice(existing?.definition ?? { tools: [] }, request.options);
      agentName = await this.agentNameFor(request, request.model);
    }

    const id = this.context.newId('resp');
    const createdAt = this.context.clock.now().toISOString();
    const echo = request.echo(previous, agentName);
    let owns = !previous;
    const listener = request.openStream?.({ id, createdAt, echo, previousResponseId: previous?.id ?? null });
    const runOptions: RunOptions = {
      submission: request.submission,
      detach: request.detach,
      allowQueue: false,
      ...(listener ? { listener } : {}),
      onAccepted: async (tx, accepted) => {
        const first = accepted.inputItems[0];
        const last = accepted.inputItems[accepted.inputItems.length - 1];
        if (!first || !last) throw new BatonError('no_input_items', 'The response had no input items to record.');
        await tx.responses.insert({
          id,
          appId,
          conversationId: accepted.turn.conversationId,
          turnId: accepted.turn.id,
          previousResponseId: previous?.id ?? null,
          inputFirstSeq: first.seq,
          inputLastSeq: last.seq,
          usageBefore: accepted.turn.usage,
          echo,
          stored: request.stored,
          ownsConversation: owns,
          createdAt,
        });
      },
    };

    if (!previous || !conversation) {
      await this.engine.startConversation(
        appId,
        agentName,
        {},
        { items: input.items, options: request.options },
        runOptions,
      );
    } else {
      owns = await this.continueFrom(request, previous, input, runOptions);
    }

    const record = await store.responses.get(appId, id);
    if (!record) throw new BatonError('response_missing', `Response '${id}' was not recorded.`);
    const state = await loadResponseState(store, record, this.agentOf);
    if (request.connection && !request.stored) request.connection.remember(record);
    else if (!request.stored && owns && !isInProgress(state)) {
      // Nobody can read or continue it: its conversation goes as soon as its turn is done.
      await this.engine.deleteConversation(appId, record.conversationId, request.submission.actor);
    } else if (!request.stored && !state.continuation && state.turn.status === 'requires_action') {
      // It continued a stored chain and paused: nobody can continue it to answer its calls, and the
      // chain stays blocked behind them. Its turn is cancelled now, as an unstored chain's is.
      // A race lost to an answer through the ledger, or to a deadline, leaves nothing to cancel.
      await this.engine.cancel(appId, record.conversationId, request.submission.actor).catch(() => {});
    }
    return state;
  }

  /**
   * Continues `previous`: answers its paused turn, starts the next turn, or, when it is not the
   * latest response of its conversation, branches into a new conversation with the history up to
   * it. Returns whether the response owns its conversation (a branch does).
   */
  private async continueFrom(
    request: CreateResponse,
    previous: ResponseRecord,
    input: ResolvedInput,
    runOptions: RunOptions,
  ): Promise<boolean> {
    const { appId } = request;
    const store = this.context.store;
    const conversationId = previous.conversationId;
    const latest = await store.responses.latestInConversation(conversationId);
    const state = await this.engine.getConversationState(appId, conversationId);
    if (latest && latest.id !== previous.id) {
      if (state.status === 'pending') {
        const pending = state.pendingCalls.map((entry) => entry.id);
        throw new BatonError(
          'previous_response_not_latest',
          `Previous response '${previous.id}' is not the latest of its conversation: '${latest.id}' is, and it waits for the results of ${pending.join(', ')}.`,
          {
            param: 'previous_response_id',
            details: { latest_response_id: latest.id, pending_call_ids: pending },
            data: { response_id: previous.id, latest_response_id: latest.id, pending_call_ids: pending },
          },
        );
      }
      const next = await store.responses.nextInConversation(conversationId, previous.inputLastSeq);
      if (next && next.turnId === previous.turnId) {
        throw new BatonError(
          'response_already_continued',
          `Previous response '${previous.id}' was already continued by '${next.id}', which answered its tool calls; a call is answered once.`,
          {
            param: 'previous_response_id',
            details: { continued_by: next.id, latest_response_id: latest.id },
            data: { response_id: previous.id, continued_by: next.id, latest_response_id: latest.id },
          },
        );
      }
      await this.branchFrom(request, previous, input, runOptions);
      return true;
    }
    if (state.status === 'pending') {
      refuseWhileApprovalsPending(previous.id, state.pendingCalls);
      const { results, followUp } = splitAnswer(input, state.pendingCalls);
      await this.engine.submitResults(appId, conversationId, results, runOptions, followUp, request.statedOptions);
    } else if (state.status === 'running') {
      throw new BatonError(
        'previous_response_in_progress',
        `Previous response '${previous.id}' is still in progress.`,
        {
          param: 'previous_response_id',
          data: { response_id: previous.id },
        },
      );
    } else {
      await this.engine.sendMessage(
        appId,
        conversationId,
        { items: input.items, options: request.options },
        runOptions,
      );
    }
    return false;
  }

  /** A new conversation with the history up to `previous`, continued with the request's input. */
  private async branchFrom(
    request: CreateResponse,
    previous: ResponseRecord,
    input: ResolvedInput,
    runOptions: RunOptions,
  ): Promise<void> {
    const { appId } = request;
    const next = await this.context.store.responses.nextInConversation(previous.conversationId, previous.inputLastSeq);
    const upto = next ? next.inputFirstSeq - 1 : Number.MAX_SAFE_INTEGER;
    const branch = await this.engine.forkConversation(appId, previous.conversationId, upto);
    try {
      await this.engine.sendMessage(appId, branch.id, { items: input.items, options: request.options }, runOptions);
    } catch (error) {
      await this.engine.deleteConversation(appId, branch.id, request.submission.actor).catch(() => {});
      throw error;
    }
  }

  /** The agent a `model` names: an agent of the app, else a `provider:model` behind an implicit agent. */
  private async agentNameFor(request: CreateResponse, model: string): Promise<string> {
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

  /** The cache of one WebSocket connection's `store: false` responses, which purges them when it closes. */
  openConnection(
    owner: ConnectionOwner,
    log: { warn(details: object, message: string): void },
  ): ConnectionResponseCache {
    return new ConnectionResponseCache(this.engine, owner, log);
  }

  // ---- after creation ----------------------------------------------------------------------

  /** A stored response as it stands; unstored ones are never readable. */
  async get(appId: string, id: string): Promise<ResponseState> {
    return loadResponseState(this.context.store, await this.stored(appId, id), this.agentOf);
  }

  /** Cancels the response's turn if it is running or waiting for outputs; pending calls get synthetic results. */
  async cancel(appId: string, id: string, actor: string | null): Promise<ResponseState> {
    const record = await this.stored(appId, id);
    const state = await loadResponseState(this.context.store, record, this.agentOf);
    const active =
      !state.continuation && (state.turn.status === 'in_progress' || state.turn.status === 'requires_action');
    if (!active) {
      throw new BatonError(
        'response_not_cancellable',
        `Response '${id}' cannot be cancelled: nothing of it is running or waiting for tool outputs.`,
        {
          data: {
            response_id: id,
            turn_status: state.turn.status,
            finish_reason: state.turn.finishReason,
            continued: state.continuation !== null,
          },
        },
      );
    }
    await this.engine.cancel(appId, record.conversationId, actor);
    return loadResponseState(this.context.store, record, this.agentOf);
  }

  /**
   * Deletes a response: it can no longer be read or continued. A turn it left running or waiting
   * is cancelled first. When no response of the conversation is left, the conversation goes too.
   */
  async delete(appId: string, id: string, actor: string | null): Promise<void> {
    const store = this.context.store;
    const record = await this.stored(appId, id);
    const latest = await store.responses.latestInConversation(record.conversationId);
    if (latest?.id === id) {
      const state = await this.engine.getConversationState(appId, record.conversationId);
      if (state.activeTurn?.id === record.turnId)
        await this.engine.cancel(appId, record.conversationId, actor).catch(() => {});
    }
    await store.responses.hide(appId, id);
    if ((await store.responses.countStoredInConversation(record.conversationId)) === 0) {
      await this.engine.deleteConversation(appId, record.conversationId, actor, { audit: true });
    }
  }

  /**
   * Purges the conversations of `store: false` responses a crash left behind. A WebSocket
   * connection lives at most 60 minutes, so nothing older can still be in use.
   */
  async purgeAbandoned(olderThanSeconds = ABANDONED_AFTER_SECONDS, limit = 100): Promise<number> {
    const before = new Date(this.context.clock.now().getTime() - olderThanSeconds * 1000).toISOString();
    let purged = 0;
    for (const record of await this.context.store.responses.listUnstoredBefore(before, limit)) {
      await this.engine.deleteConversation(record.appId, record.conversationId, 'baton:sweeper').catch(() => {});
      purged += 1;
    }
    return purged;
  }

  /** The items a response's request added (its input), visible ones, with the server calls among them. */
  async inputItems(appId: string, id: string): Promise<{ items: ItemRecord[]; serverCalls: ServerCallIndex }> {
    const store = this.context.store;
    const record = await this.stored(appId, id);
    const span = record.inputLastSeq - record.inputFirstSeq + 1;
    const items = (await store.items.listAfterSeq(record.conversationId, record.inputFirstSeq - 1, span)).filter(
      (item) => !isHiddenItem(item),
    );
    // A resumed turn's input holds the outputs of the server calls it made too.
    return { items, serverCalls: await loadServerCalls(store, items) };
  }

  /**
   * A context to compact: the visible history of a continuable response's conversation up to it,
   * then `input` with its references looked up. Nothing is written.
   */
  async compactionContext(appId: string, previousId: string | null, input: ResponseInput): Promise<InputItem[]> {
    const context: InputItem[] = [];
    if (previousId) {
      const previous = await this.findContinuable(appId, previousId);
      const next = await this.context.store.responses.nextInConversation(
        previous.conversationId,
        previous.inputLastSeq,
      );
      const upto = next ? next.inputFirstSeq - 1 : Number.MAX_SAFE_INTEGER;
      for (const item of await this.historyUpTo(previous.conversationId, upto)) context.push(asInputItem(item));
    }
    context.push(...(await resolveReferences(this.context.store, appId, input)).items);
    return context;
  }

  private async historyUpTo(conversationId: string, uptoSeq: number): Promise<ItemRecord[]> {
    const items: ItemRecord[] = [];
    for (let after = 0; ;) {
      const page = await this.context.store.items.listAfterSeq(conversationId, after, HISTORY_PAGE);
      items.push(...page.filter((item) => item.seq <= uptoSeq && !isHiddenItem(item)));
      if (page.length < HISTORY_PAGE || page.some((item) => item.seq > uptoSeq)) return items;
      after = page[page.length - 1]?.seq ?? after;
    }
  }

  /** The conversation of a stored response (its chain, and the branches that share its conversation). */
  async conversationOf(appId: string, id: string): Promise<string> {
    return (await this.stored(appId, id)).conversationId;
  }

  private async stored(appId: string, id: string): Promise<ResponseRecord> {
    const record = await this.context.store.responses.get(appId, id);
    if (!record || !record.stored) {
      throw new BatonError('response_not_found', `No response found with id '${id}'.`, {
        param: 'response_id',
        data: { response_id: id },
      });
    }
    return record;
  }
}
