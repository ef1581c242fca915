import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import { conversationExportView } from '../kit/conversation-export-view.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { StreamedReply } from '../kit/streamed-reply.ts';
import type { StreamSlots } from '../kit/stream-slots.ts';
import { parseCreateBody } from './create-body.ts';
import { DIALECT_BASES, type ResponsesDialect } from './response-dialect.ts';
import { responsesErrorBody, toResponsesError } from './response-errors.ts';
import { ResponseLifecycle } from './response-lifecycle.ts';
import { ResponseReplayStreams } from './response-replay-stream.ts';
import { ResponseService } from './response-service.ts';
import { compactRequestBody, inputItemsQuery, retrieveQuery, type RetrieveQuery } from './response-wire.ts';

type ResponseParams = { Params: { id: string } };

/** `include` of a retrieve, written `include=a`, `include=a&include=b` or `include[]=a` as clients do. */
function includeOf(query: RetrieveQuery): string[] {
  return [query['include'], query['include[]']].flat().filter((value): value is string => typeof value === 'string');
}

/**
 * The Responses face: Open Responses over HTTP (JSON and SSE), compatible with the `openai` client,
 * on `/v1/responses…` and, in the Nodexa dialect, on `/nodexa/v1/responses…` (response-dialect.ts).
 */
export function registerResponseRoutes(app: FastifyInstance, face: FaceContext): ResponseService {
  const service = new ResponseService(
    face.engine,
    async (appId, model) => (await face.resources.agentDefinitions.ensureModelAgent(appId, model)).name,
  );
  const lifecycle = new ResponseLifecycle(face.engine);
  const replays = new ResponseReplayStreams(face.engine, face.streams);
  app.addHook('preClose', async () => replays.closeAll());
  face.addSweepChore(() => face.engine.responses.purgeAbandoned());
  const render = (error: BatonError) => ({ status: toResponsesError(error).status, body: responsesErrorBody(error) });
  face.useErrorFormat('/v1/responses', render);
  // Everything under the Nodexa base speaks OpenAI's error format: its clients are OpenAI clients.
  face.useErrorFormat(DIALECT_BASES.nodexa, render);
  for (const dialect of Object.keys(DIALECT_BASES) as ResponsesDialect[])
    registerDialectRoutes(app, face, dialect, { service, lifecycle, replays });
  return service;
}

/** The routes of one dialect, under its base: the same handlers, told which dialect they speak. */
function registerDialectRoutes(
  app: FastifyInstance,
  face: FaceContext,
  dialect: ResponsesDialect,
  parts: { service: ResponseService; lifecycle: ResponseLifecycle; replays: ResponseReplayStreams },
): void {
  const { service, lifecycle, replays } = parts;
  const path = `${DIALECT_BASES[dialect]}/responses`;

  app.post(path, async (request, reply) => {
    const body = parseCreateBody(request.body);
    const { appId, keyId } = request.principal;
    const base = { appId, actor: keyId, idempotencyKey: request.idempotency?.key ?? null, dialect };
    if (body.stream !== true) return service.create(body, base);
    const stream = new LazySse(request, reply, face.streams);
    try {
      const view = await service.create(body, { ...base, sink: stream.sink });
      return await stream.finish(view);
    } catch (error) {
      if (stream.started) return await stream.fail(error);
      throw error;
    }
  });

  app.post(`${path}/compact`, async (request) => {
    const body = parseRequest(compactRequestBody, request.body);
    return lifecycle.compact(request.principal.appId, body);
  });

  app.get<ResponseParams>(`${path}/:id`, async (request, reply) => {
    const query = parseRequest(retrieveQuery, request.query, 'query');
    const { appId } = request.principal;
    const include = includeOf(query);
    if (query.stream !== 'true') {
      if (query.starting_after !== undefined)
        throw new BatonError('invalid_request', 'starting_after applies to a stream: add stream=true.', {
          param: 'starting_after',
        });
      return service.get(appId, request.params.id, include, dialect);
    }
    const startingAfter = query.starting_after ?? -1;
    await replays.serve(request, reply, { appId, id: request.params.id, include, dialect, startingAfter });
    return reply;
  });

  app.delete<ResponseParams>(`${path}/:id`, async (request) =>
    lifecycle.delete(request.principal.appId, request.params.id, request.principal.keyId),
  );

  // The whole conversation the response belongs to, as docs/conversation-export.md describes it.
  app.get<ResponseParams>(`${path}/:id/export`, async (request) => {
    const { appId, keyId } = request.principal;
    const conversationId = await face.engine.responses.conversationOf(appId, request.params.id);
    return conversationExportView(await face.engine.lifecycle.exportConversation(appId, conversationId, keyId));
  });

  app.post<ResponseParams>(`${path}/:id/cancel`, async (request) =>
    lifecycle.cancel(request.principal.appId, request.params.id, request.principal.keyId),
  );

  app.get<ResponseParams>(`${path}/:id/input_items`, async (request) => {
    const query = parseRequest(inputItemsQuery, request.query, 'query');
    return lifecycle.inputItems(request.principal.appId, request.params.id, query);
  });
}

/**
 * SSE for one response. The stream opens on the first event, so errors found before the engine
 * accepts the input are still plain JSON errors with their status.
 */
class LazySse {
  private readonly reply: StreamedReply;

  constructor(
    private readonly request: FastifyRequest,
    reply: FastifyReply,
    streams: StreamSlots,
  ) {
    this.reply = new StreamedReply(request, reply, streams);
  }

  get started(): boolean {
    return this.reply.started;
  }

  readonly sink = (event: JsonObject): void => this.reply.open().event(String(event['type']), event);

  async finish(view: JsonObject): Promise<void> {
    await this.reply.complete(200, view);
  }

  /** The service already sent `error` and `response.failed` on the stream; only close it. */
  async fail(error: unknown): Promise<void> {
    if (!(error instanceof BatonError) || error.kind === 'internal')
      this.request.log.error({ err: error }, 'response stream failed');
    await this.reply.fail();
  }
}
