import type { FastifyInstance } from 'fastify';
import type { FaceContext } from '../kit/face-context.ts';
import { googleErrorBody } from './ces-errors.ts';
import { registerCesResourceRoutes } from './ces-resource-routes.ts';
import { createCesResourceServices, type CesResourceServices } from '../../resources/resource-services.ts';
import { RetrieveToolsService } from '../../resources/toolsets/retrieve-tools.ts';
import { registerSessionRoutes } from './sessions/session-routes.ts';

/**
 * The CES face under `/v1/projects/…`: resources, sessions and conversations, every error a
 * google.rpc.Status. Returns the resource services so the management MCP server shares them.
 */
export function registerCesFace(app: FastifyInstance, face: FaceContext): CesResourceServices {
  face.useErrorFormat('/v1/projects/', (error) => googleErrorBody(error));
  const services = createCesResourceServices({ store: face.store, agents: face.agents, keys: face.keys });
  registerCesResourceRoutes(app, services, new RetrieveToolsService(face.store, face.toolsets));
  registerSessionRoutes(app, face);
  return services;
}
