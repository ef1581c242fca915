import type { AgentService } from '../../engine/agent-service.ts';
import { checkToolChoice, type Engine, type RunOptions } from '../../engine/index.ts';
import { checkInputItems } from '../../engine/index.ts';
import { assertValidToolSet } from '../../engine/index.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { InputItem } from '../../engine/index.ts';
import type { ToolResultInput } from '../../engine/index.ts';
import { newId } from '../../domain/ids.ts';
import type { JsonObject, ResponseRecord, TurnOptions } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { responsesErrorBody } from './response-errors.ts';
import { ResponseEventTranslator, type ResponseEventSink } from './response-events.ts';
import {
  resolveInput,
  statedTurnOptions,
  toEcho,
  toFunctionTools,
  toInputItems,
  toTurnOptions,
  type ParsedInput,
} from './response-request.ts';
import { baseResponseView, loadResponseState, responseView } from './response-views.ts';
import { refuseOutputsForServerCalls, refuseWhileApprovalsPending } from './server-call-input.ts';
import type { CreateResponseBody } from './response-wire.ts';

/** Who is asking, and how the answer travels. */
export interface CreateRequest {
  appId: string;
  actor: string | null;
  idempotencyKey: string | null;
  /** Streaming: events go here as they happen. */
  sink?: ResponseEventSink;
  /** A WebSocket connection's cache: ids of `store: false` responses it may continue. */
  connection?: ConnectionResponses;
}

/** The `store: false` responses one WebSocket connection created, which only it may continue. */
export interface ConnectionResponses {
  has(responseId: string): boolean;
  remember(record: ResponseRecord): void;
  forget(responseId: string): void;
}

export function previousNotFound(id: string): BatonError {
  return new BatonError('previous_response_not_found', `Previous response with id '${id}' not found.`, {
    param: 'previous_response_id',
  });
}

/**
 * The Responses face over the engine: maps a create request to "start a conversation", "answer
 * the paused turn", "continue" or "branch", and records the response (its span of items) in the
 * same transaction the engine accepts the input in. No pausing, pairing or validation rule lives
 * here; those are the engine's.
 */
export class ResponseService {
  constructor(
    private readonly store: Store,
    private readonly engine: Engine,
    private readonly agents: AgentService,
  ) {}

  /** The agent a `model` names: an agent of the app, else a `provider:model` behind an implicit agent. */
  private async agentNameFor(appId: string, model: string): Promise<string> {
    const agent = await this.store.agents.get(appId, model);
    if (agent) return agent.name;
    if (!model.includes(':')) {
      throw new BatonError(
        'model_not_found',
        `The model '${model}' does not exist: name one of this app's agents (GET /v1/agents) or a provider model such as 'scripted:auto' or 'openai:gpt-4o-mini'.`,
        { param: 'model' },
      );
    }
    try {
      return (await this.agents.ensureModelAgent(appId, model)).name;
    } catch (error) {
      if (error instanceof BatonError && error.code === 'invalid_model')
        throw new BatonError('model_not_found', error.message, { param: 'model' });
      throw error;
    }
  }

  /** A response a request may continue: stored, or created by this WebSocket connection. */
  async findContinuable(appId: string, id: string, connection?: ConnectionResponses): Promise<ResponseRecord> {
    const record = await this.store.responses.get(appId, id);
    if (!record || !(record.stored || connection?.has(id))) throw previousNotFound(id);
    return record;
  }

  async create(body: CreateResponseBody, request: CreateRequest): Promise<JsonObject> {
    let translator: ResponseEventTranslator | null = null;
    const sink = request.sink;
    const openStream = sink
      ? (snapshot: () => JsonObject) => (translator = new ResponseEventTranslator(sink, snapshot))
      : null;
    try {
      return await this.createResponse(body, request, openStream);
    } catch (error) {
      // Once events went out, the failure must arrive as events too: `error`, then `response.failed`.
      const started = translator as ResponseEventTranslator | null;
      if (started?.hasStarted) {
        const engineError =
          error instanceof BatonError
            ? error
            : new BatonError('internal_error', 'Internal server error while streaming; the failure was logged.');
        const { type, code, message, param } = responsesErrorBody(engineError).error;
        started.fail({ type, code: code ?? 'server_error', message, param });
      }
      throw error;
    }
  }

  private async createResponse(
    body: CreateResponseBody,
    request: CreateRequest,
    openStream: ((snapshot: () => JsonObject) => ResponseEventTranslator) | null,
  ): Promise<JsonObject> {
    const input = await resolveInput(this.store, request.appId, toInputItems(body.input));
    if (input.items.length === 0) {
      throw new BatonError('empty_input', 'input is required: send a string or at least one input item.', {
        param: 'input',
      });
    }
    if (body.background && body.store === false) {
      throw new BatonError(
        'background_requires_store',
        'background: true needs store: true, so the response can be read while it runs.',
        { param: 'background' },
      );
    }
    const { wire: tools, definitions } = toFunctionTools(body.tools);
    const previous = body.previous_response_id
      ? await this.findContinuable(request.appId, body.previous_response_id, request.connection)
      : null;
    const conversation = previous ? await this.engine.getConversation(request.appId, previous.conversationId) : null;

    let agentName: string;
    if (conversation) {
      agentName = conversation.agentName;
      if (
        body.model &&
        body.model !== previous?.echo['model'] &&
        (await this.agentNameFor(request.appId, body.model)) !== agentName
      ) {
        throw new BatonError(
          'model_mismatch',
          `model '${body.model}' differs from the model of previous response '${previous?.id}' ('${String(previous?.echo['model'])}'): a conversation keeps its agent. Omit model, or start a new conversation.`,
          { param: 'model' },
        );
      }
    } else {
      if (!body.model)
        throw new BatonError(
          'missing_model',
          'model is required: name an agent or a provider model such as scripted:auto.',
          { param: 'model' },
        );
      // The engine checks all of this again; checking first keeps a refused request from leaving
      // an implicit `model:` agent behind.
      assertValidToolSet(definitions, 'tools');
      checkInputItems(input.items, (index) => input.params[index] ?? 'input');
      const existing = await this.store.agents.get(request.appId, body.model);
      checkToolChoice(existing?.definition ?? { tools: [] }, toTurnOptions(body, definitions));
      agentName = await this.agentNameFor(request.appId, body.model);
    }

    if (conversation) await refuseOutputsForServerCalls(this.store, request.appId, input);

    const id = newId('resp');
    const createdAt = this.engine.context.clock.now().toISOString();
    const echoTools = body.tools === undefined && previous ? previous.echo['tools'] : undefined;
    const echo = {
      ...toEcho(body, body.model ?? String(previous?.echo['model'] ?? agentName), tools),
      ...(echoTools !== undefined ? { tools: echoTools } : {}),
    };
    const stored = body.store !== false;
    let owns = !previous;
    const translator = openStream
      ? openStream(() => baseResponseView({ id, createdAt, echo, previousResponseId: previous?.id ?? null }))
      : null;
    const runOptions: RunOptions = {
      submission: { actor: request.actor, idempotencyKey: request.idempotencyKey },
      // A streamed background response still streams; it just is not tied to the client's wait.
      detach: body.background === true && !request.sink,
      allowQueue: false,
      ...(translator ? { listener: translator.listener } : {}),
      onAccepted: async (tx, accepted) => {
        const first = accepted.inputItems[0];
        const last = accepted.inputItems[accepted.inputItems.length - 1];
        if (!first || !last) throw new BatonError('no_input_items', 'The response had no input items to record.');
        await tx.responses.insert({
          id,
          appId: request.appId,
          conversationId: accepted.turn.conversationId,
          turnId: accepted.turn.id,
          previousResponseId: previous?.id ?? null,
          inputFirstSeq: first.seq,
          inputLastSeq: last.seq,
          usageBefore: accepted.turn.usage,
          echo,
          stored,
          ownsConversation: owns,
          createdAt,
        });
      },
    };
    const options = toTurnOptions(body, definitions);

    if (!previous || !conversation) {
      await this.engine.startConversation(request.appId, agentName, {}, { items: input.items, options }, runOptions);
    } else {
      const latest = await this.store.responses.latestInConversation(conversation.id);
      const state = await this.engine.getConversationState(request.appId, conversation.id);
      if (latest && latest.id !== previous.id) {
        if (state.status === 'pending') {
          const pending = state.pendingCalls.map((entry) => entry.id);
          throw new BatonError(
            'previous_response_not_latest',
            `Previous response '${previous.id}' is not the latest of its conversation: '${latest.id}' is, and it waits for the outputs of ${pending.join(', ')}. Continue from '${latest.id}' with those outputs, or cancel it (POST /v1/responses/${latest.id}/cancel) first.`,
            { param: 'previous_response_id', details: { latest_response_id: latest.id, pending_call_ids: pending } },
          );
        }
        const next = await this.store.responses.nextInConversation(conversation.id, previous.inputLastSeq);
        if (next && next.turnId === previous.turnId) {
          throw new BatonError(
            'response_already_continued',
            `Previous response '${previous.id}' was already continued by '${next.id}', which answered its tool calls; a call is answered once. Continue from the latest response, '${latest.id}'.`,
            { param: 'previous_response_id', details: { continued_by: next.id, latest_response_id: latest.id } },
          );
        }
        owns = true;
        await this.branchFrom(previous, input, options, runOptions, request);
      } else if (state.status === 'pending') {
        refuseWhileApprovalsPending(previous.id, state.pendingCalls);
        await this.answerPausedTurn(
          request.appId,
          conversation.id,
          input,
          runOptions,
          statedTurnOptions(body, definitions),
        );
      } else if (state.status === 'running') {
        throw new BatonError(
          'previous_response_in_progress',
          `Previous response '${previous.id}' is still in progress; wait for it to finish (GET /v1/responses/${previous.id}) before continuing it.`,
          {
            param: 'previous_response_id',
          },
        );
      } else {
        await this.engine.sendMessage(request.appId, conversation.id, { items: input.items, options }, runOptions);
      }
    }

    const record = await this.store.responses.get(request.appId, id);
    if (!record) throw new BatonError('response_missing', `Response '${id}' was not recorded.`);
    const view = responseView(await loadResponseState(this.store, record));
    translator?.finish(view);
    if (request.connection && !stored) request.connection.remember(record);
    else if (!stored && owns && view['status'] !== 'in_progress')
      await this.engine.deleteConversation(request.appId, record.conversationId, request.actor);
    return view;
  }

  /** Results for the paused turn: `function_call_output` items answer it, messages follow them. */
  private async answerPausedTurn(
    appId: string,
    conversationId: string,
    input: ParsedInput,
    runOptions: RunOptions,
    stated: Partial<TurnOptions>,
  ): Promise<void> {
    const results: ToolResultInput[] = [];
    const followUp: InputItem[] = [];
    input.items.forEach((item, index) => {
      const param = input.params[index] ?? 'input';
      if (item.type === 'function_call_output')
        results.push({ callId: item.callId, output: item.output, isError: item.isError, param });
      else if (item.type === 'message') followUp.push(item);
      else {
        throw new BatonError(
          'unexpected_function_call',
          `${param} is a function_call; with previous_response_id send only function_call_output items (and messages): the calls are already in the conversation.`,
          {
            param,
          },
        );
      }
    });
    if (results.length === 0) {
      const state = await this.engine.getConversationState(appId, conversationId);
      throw new BatonError(
        'tool_call_without_output',
        `No tool output found for function call ${state.pendingCalls.map((entry) => entry.id).join(', ')}.`,
        {
          param: 'input',
        },
      );
    }
    await this.engine.submitResults(appId, conversationId, results, runOptions, followUp, stated);
  }

  /** Continues from an earlier response: a new conversation with the history up to that response. */
  private async branchFrom(
    previous: ResponseRecord,
    input: ParsedInput,
    options: ReturnType<typeof toTurnOptions>,
    runOptions: RunOptions,
    request: CreateRequest,
  ): Promise<void> {
    const next = await this.store.responses.nextInConversation(previous.conversationId, previous.inputLastSeq);
    const upto = next ? next.inputFirstSeq - 1 : Number.MAX_SAFE_INTEGER;
    const branch = await this.engine.forkConversation(request.appId, previous.conversationId, upto);
    try {
      await this.engine.sendMessage(request.appId, branch.id, { items: input.items, options }, runOptions);
    } catch (error) {
      await this.engine.deleteConversation(request.appId, branch.id, request.actor).catch(() => {});
      throw error;
    }
  }

  async get(appId: string, id: string): Promise<JsonObject> {
    const record = await this.store.responses.get(appId, id);
    if (!record || !record.stored) throw responseNotFound(id);
    return responseView(await loadResponseState(this.store, record));
  }
}

export function responseNotFound(id: string): BatonError {
  return new BatonError('response_not_found', `No response found with id '${id}'.`, {
    param: 'response_id',
  });
}
