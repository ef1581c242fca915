import { BatonError } from '../../../domain/errors/baton-error.ts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toBatonError } from '../../kit/http-errors.ts';
import type { FaceContext } from '../../kit/face-context.ts';
import { parseRequest } from '../../../domain/parse-request.ts';
import { StreamedReply } from '../../kit/streamed-reply.ts';
import { googleErrorBody } from '../ces-errors.ts';
import { acceptProtoFieldNames } from '../proto-field-names.ts';
import { ConversationService } from './conversation-service.ts';
import { SessionService } from './session-service.ts';
import { runSessionRequestSchema, type SessionOutput } from './session-wire.ts';

type AppParams = { project: string; location: string; app: string };

const APP_PATH = '/v1/projects/:project/locations/:location/apps/:app';

export const conversationListQuery = z
  .object({
    pageSize: z.string().optional(),
    pageToken: z.string().max(2_000).optional(),
    filter: z.string().max(2_000).optional(),
    orderBy: z.string().max(200).optional(),
  })
  .strict();
const emptyQuery = z.object({}).strict();

const EXPORT_METHOD = ':export';

/**
 * `sessions/{id}:runSession` (one JSON response) and `:streamRunSession` (SSE, one
 * `RunSessionResponse` per frame, as Google's `alt=sse`), plus conversations list/get/delete.
 */
export function registerSessionRoutes(app: FastifyInstance, face: FaceContext): void {
  // The tool catalog names calls by their source (a Tool, or a toolset's tool).
  const sessions = new SessionService(face.resources, face.engine);
  const conversations = new ConversationService(face.resources, face.engine);

  app.post<{ Params: AppParams & { sessionAction: string } }>(
    `${APP_PATH}/sessions/:sessionAction`,
    async (request, reply) => {
      const { sessionAction, ...appPath } = request.params;
      const match = /^(.+):(runSession|streamRunSession)$/.exec(sessionAction);
      if (!match) {
        throw new BatonError(
          'method_not_found',
          `No method '${sessionAction}': call sessions/{session}:runSession or sessions/{session}:streamRunSession.`,
        );
      }
      parseRequest(emptyQuery, request.query, 'query string');
      // Proto field names (`tool_responses`, `display_name`) are read as their JSON names; errors
      // name fields as the client spelled them.
      const accepted = acceptProtoFieldNames(runSessionRequestSchema, request.body ?? {});
      try {
        const body = parseRequest(runSessionRequestSchema, accepted.message);
        const path = { ...appPath, session: match[1] ?? '' };
        const idempotencyKey = request.idempotency?.key ?? null;
        if (match[2] === 'runSession') {
          const outputs: SessionOutput[] = [];
          await sessions.runSession(request.principal, path, body, (output) => outputs.push(output), idempotencyKey);
          return reply.send({ outputs });
        }
        // Errors found before the first output are ordinary JSON errors; later ones end the stream.
        // A replay of a finished stream gets the whole run as one JSON response.
        const streamed: SessionOutput[] = [];
        const stream = new StreamedReply(request, reply, face.streams);
        try {
          await sessions.runSession(
            request.principal,
            path,
            body,
            (output) => {
              streamed.push(output);
              stream.open().data({ outputs: [output] });
            },
            idempotencyKey,
          );
          stream.open();
          await stream.complete(200, { outputs: streamed }, 'end');
        } catch (error) {
          if (!stream.started) throw error;
          const engineError = accepted.inClientSpelling(toBatonError(error, 0));
          if (engineError.kind === 'internal') request.log.error({ err: error }, 'session stream failed');
          stream.open().data(googleErrorBody(engineError).body);
          await stream.fail('end');
        }
      } catch (error) {
        throw accepted.inClientSpelling(error);
      }
      return reply;
    },
  );

  app.get<{ Params: AppParams }>(`${APP_PATH}/conversations`, async (request) => {
    const accepted = acceptProtoFieldNames(conversationListQuery, request.query ?? {});
    try {
      const query = parseRequest(conversationListQuery, accepted.message, 'query string');
      return await conversations.list(request.principal, request.params, query);
    } catch (error) {
      throw accepted.inClientSpelling(error);
    }
  });
  app.get<{ Params: AppParams & { conversation: string } }>(
    `${APP_PATH}/conversations/:conversation`,
    async (request) => {
      parseRequest(emptyQuery, request.query, 'query string');
      // `conversations/{id}:export`, a custom method on the same path.
      const id = request.params.conversation;
      if (id.endsWith(EXPORT_METHOD))
        return conversations.export(request.principal, request.params, id.slice(0, -EXPORT_METHOD.length));
      return conversations.get(request.principal, request.params, id);
    },
  );
  app.delete<{ Params: AppParams & { conversation: string } }>(
    `${APP_PATH}/conversations/:conversation`,
    async (request) => {
      parseRequest(emptyQuery, request.query, 'query string');
      return conversations.delete(request.principal, request.params, request.params.conversation);
    },
  );
}
