import type { FastifyInstance } from 'fastify';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { StreamedReply } from '../kit/streamed-reply.ts';
import { chatErrorBody, renderChatError } from './chat-errors.ts';
import { ChatService } from './chat-service.ts';
import type { ChatChunks } from './chat-stream.ts';
import { chatCompletionBody } from './chat-wire.ts';
import { registerModelRoutes } from './model-routes.ts';

/**
 * The Chat Completions face: OpenAI's `POST /v1/chat/completions` (JSON and SSE) and
 * `GET /v1/models`, so any Chat Completions client can use a Baton agent as its model.
 */
export function registerChatRoutes(app: FastifyInstance, face: FaceContext): void {
  face.useErrorFormat('/v1/chat', renderChatError);
  face.useErrorFormat('/v1/models', renderChatError);
  const service = new ChatService(
    face.engine,
    async (appId, model) => (await face.resources.agentDefinitions.ensureModelAgent(appId, model)).name,
  );

  app.post('/v1/chat/completions', async (request, reply) => {
    const body = parseRequest(chatCompletionBody, request.body);
    const { appId, keyId } = request.principal;
    const submission = {
      actor: keyId,
      idempotencyKey: request.idempotency?.key ?? null,
      retriesDeadRun: request.idempotency?.takenOver === true,
    };
    if (body.stream !== true) return service.complete(body, { appId, submission });
    // The stream opens on its first chunk: a request refused before the run starts is a plain JSON error.
    const streamed = new StreamedReply(request, reply, face.streams);
    let chunks: ChatChunks | undefined;
    try {
      const completion = await service.complete(
        body,
        { appId, submission, streamTo: (chunk) => streamed.open().data(chunk) },
        (opened) => (chunks = opened),
      );
      return await streamed.complete(200, completion);
    } catch (error) {
      if (!streamed.started) throw error;
      const failure =
        error instanceof BatonError
          ? error
          : new BatonError('internal_error', 'Internal server error while streaming; the failure was logged.');
      if (failure.kind === 'internal') request.log.error({ err: error }, 'chat completion stream failed');
      chunks?.fail(chatErrorBody(failure));
      return await streamed.fail();
    }
  });

  registerModelRoutes(app, face);
}
