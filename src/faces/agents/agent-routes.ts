import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { FaceContext } from '../kit/face-context.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { agentFromWire, agentToWire, agentWireSchema } from '../../resources/agents/agent-config-form.ts';
import { pageQuerySchema, toPageRequest } from '../kit/page-query.ts';

export const replaceAgentBody = agentWireSchema
  .omit({ name: true })
  .extend({ name: z.string().optional(), expected_version: z.number().int().optional() })
  .strict();

/** `/v1/agents`: CRUD; each update is a new version, and paused turns keep the version they started with. */
export function registerAgentRoutes(app: FastifyInstance, face: FaceContext): void {
  const agents = face.resources.agentDefinitions;
  app.post('/v1/agents', async (request, reply) => {
    const body = parseRequest(agentWireSchema, request.body);
    const agent = await agents.create(request.principal.appId, agentFromWire(body));
    return reply.status(201).send(agentToWire(agent));
  });

  app.get('/v1/agents', async (request) => {
    const query = parseRequest(pageQuerySchema, request.query, 'query');
    const page = await agents.list(request.principal.appId, toPageRequest(query));
    return {
      object: 'list',
      data: page.data.map(agentToWire),
      has_more: page.nextCursor !== null,
      next_cursor: page.nextCursor,
    };
  });

  app.get<{ Params: { name: string } }>('/v1/agents/:name', async (request) =>
    agentToWire(await agents.get(request.principal.appId, request.params.name)),
  );

  app.put<{ Params: { name: string } }>('/v1/agents/:name', async (request) => {
    const body = parseRequest(replaceAgentBody, request.body);
    const { expected_version: expectedVersion, name: _ignored, ...rest } = body;
    const input = agentFromWire({ ...rest, name: request.params.name });
    const agent = await agents.replace(request.principal.appId, request.params.name, input, expectedVersion);
    return agentToWire(agent);
  });

  app.delete<{ Params: { name: string } }>('/v1/agents/:name', async (request) => {
    await agents.delete(request.principal.appId, request.params.name);
    return { object: 'agent.deleted', name: request.params.name, deleted: true };
  });
}
