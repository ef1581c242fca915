import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import type {
  ConnectionResponses,
  Engine,
  EngineEventListener,
  ResponseStart,
  ResponseState,
} from '../../engine/index.ts';
import { responsesErrorBody } from './response-errors.ts';
import { ResponseEventTranslator, type ResponseEventSink } from './response-events.ts';
import { statedTurnOptions, toEcho, toFunctionTools, toInputItems, toTurnOptions } from './response-request.ts';
import { baseResponseView, responseView, type ResponseViewOptions } from './response-views.ts';
import type { ItemViewOptions } from './item-views.ts';
import { pausedStatusFor, type ResponsesDialect } from './response-dialect.ts';
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
  /** The dialect the request came in (its base URL); `open-responses` when absent. */
  dialect?: ResponsesDialect;
}

function viewOptions(include: readonly string[] | null | undefined): ItemViewOptions {
  return { encryptedReasoning: include?.includes('reasoning.encrypted_content') === true };
}

/** How a response is rendered: what `include` asks for, and the status its dialect and agent give a paused one. */
export function responseViewOptions(
  state: ResponseState,
  include: readonly string[] | null | undefined,
  dialect: ResponsesDialect = 'open-responses',
): ResponseViewOptions {
  return { ...viewOptions(include), pausedStatus: pausedStatusFor(dialect, state.agent) };
}

/** Creates (or finds) the implicit agent of a `provider:model` id in an app; returns its name. */
export type ModelAgents = (appId: string, model: string) => Promise<string>;

/**
 * The Responses face's create request: the body's shape is checked and translated here, then the
 * engine's response chains decide what it means (start, answer the paused turn, continue, branch)
 * and the result is rendered as a ResponseResource, or streamed as events.
 */
export class ResponseService {
  constructor(
    private readonly engine: Engine,
    private readonly modelAgents: ModelAgents,
  ) {}

  async create(body: CreateResponseBody, request: CreateRequest): Promise<JsonObject> {
    let translator: ResponseEventTranslator | null = null;
    const sink = request.sink;
    const views = viewOptions(body.include);
    const openStream = sink
      ? (start: ResponseStart) => {
          translator = new ResponseEventTranslator(sink, () => baseResponseView(start), views);
          return translator.listener;
        }
      : undefined;
    try {
      const view = await this.createResponse(body, request, openStream);
      (translator as ResponseEventTranslator | null)?.finish(view);
      return view;
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
    openStream: ((start: ResponseStart) => EngineEventListener) | undefined,
  ): Promise<JsonObject> {
    const input = toInputItems(body.input);
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
    const state = await this.engine.responses.create({
      appId: request.appId,
      submission: { actor: request.actor, idempotencyKey: request.idempotencyKey },
      previousResponseId: body.previous_response_id ?? null,
      model: body.model ?? undefined,
      ensureModelAgent: (model) => this.modelAgents(request.appId, model),
      input,
      tools: definitions,
      options: toTurnOptions(body, definitions),
      statedOptions: statedTurnOptions(body, definitions),
      stored: body.store !== false,
      // A streamed background response still streams; it just is not tied to the client's wait.
      detach: body.background === true && !request.sink,
      echo: (previous, agentName) => {
        const echoTools = body.tools === undefined && previous ? previous.echo['tools'] : undefined;
        return {
          ...toEcho(body, body.model ?? String(previous?.echo['model'] ?? agentName), tools),
          ...(echoTools !== undefined ? { tools: echoTools } : {}),
        };
      },
      ...(openStream ? { openStream } : {}),
      ...(request.connection ? { connection: request.connection } : {}),
    });
    return responseView(state, responseViewOptions(state, body.include, request.dialect));
  }

  /** `include` as on create: `reasoning.encrypted_content` adds what OpenAI encrypted, where it did. */
  async get(appId: string, id: string, include?: readonly string[], dialect?: ResponsesDialect): Promise<JsonObject> {
    const state = await this.engine.responses.get(appId, id);
    return responseView(state, responseViewOptions(state, include, dialect));
  }
}
