import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { StreamedReply } from '../kit/streamed-reply.ts';
import type { StreamSlots } from '../kit/stream-slots.ts';
import { responsesErrorBody, toResponsesError } from './response-errors.ts';
import { ResponseLifecycle } from './response-lifecycle.ts';
import { ResponseService } from './response-service.ts';
import { compactRequestBody, createResponseBody, inputItemsQuery } from './response-wire.ts';

type ResponseParams = { Params: { id: string } };

/** `include` of a retrieve, written `include=a`, `include=a&include=b` or `include[]=a` as clients do. */
function includeOf(query: Record<string, string | string[] | undefined>): string[] {
  return [query['include'], query['include[]']].flat().filter((value): value is string => typeof value === 'string');
}

/** The Responses face: Open Responses over HTTP (JSON and SSE), compatible with the `openai` client. */
export function registerResponseRoutes(app: FastifyInstance, face: FaceContext): ResponseService {
  const service = new ResponseService(
    face.engine,
    async (appId, model) => (await face.resources.agentDefinitions.ensureModelAgent(appId, model)).name,
  );
  const lifecycle = new ResponseLifecycle(face.engine);
  face.useErrorFormat('/v1/responses', (error) => ({
    status: toResponsesError(error).status,
    body: responsesErrorBody(error),
  }));
  face.addSweepChore(() => face.engine.responses.purgeAbandoned());

  app.post('/v1/responses', async (request, reply) => {
    const body = parseRequest(createResponseBody, request.body);
    const { appId, keyId } = request.principal;
    const base = { appId, actor: keyId, idempotencyKey: request.idempotency?.key ?? null };
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

  app.post('/v1/responses/compact', async (request) => {
    const body = parseRequest(compactRequestBody, request.body);
    return lifecycle.compact(request.principal.appId, body);
  });

  app.get<ResponseParams & { Querystring: Record<string, string | string[] | undefined> }>(
    '/v1/responses/:id',
    async (request) => service.get(request.principal.appId, request.params.id, includeOf(request.query)),
  );

  app.delete<ResponseParams>('/v1/responses/:id', async (request) =>
    lifecycle.delete(request.principal.appId, request.params.id, request.principal.keyId),
  );

  app.post<ResponseParams>('/v1/responses/:id/cancel', async (request) =>
    lifecycle.cancel(request.principal.appId, request.params.id, request.principal.keyId),
  );

  app.get<ResponseParams>('/v1/responses/:id/input_items', async (request) => {
    const query = parseRequest(inputItemsQuery, request.query, 'query');
    return lifecycle.inputItems(request.principal.appId, request.params.id, query);
  });

  return service;
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
