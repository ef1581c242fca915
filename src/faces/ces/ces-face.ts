import type { FastifyInstance } from 'fastify';
import type { FaceContext } from '../kit/face-context.ts';
import { googleErrorBody } from './ces-errors.ts';
import { registerCesResourceRoutes } from './ces-resource-routes.ts';
import { registerSessionRoutes } from './sessions/session-routes.ts';

/**
 * The CES face under `/v1/projects/…`: resources, sessions and conversations, every error a
 * google.rpc.Status. The management MCP server calls the same resource services.
 */
export function registerCesFace(app: FastifyInstance, face: FaceContext): void {
  face.useErrorFormat('/v1/projects/', (error) => googleErrorBody(error));
  registerCesResourceRoutes(app, face.resources);
  registerSessionRoutes(app, face);
}
