import type { FastifyInstance } from 'fastify';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { AgentRecord, JsonObject } from '../../domain/records.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { modelList } from './model-list.ts';

const AGENT_PAGE = 100;

/** `GET /v1/models` and `GET /v1/models/{id}`: what a Chat Completions client may name as `model`. */
export function registerModelRoutes(app: FastifyInstance, face: FaceContext): void {
  const agents = face.resources.agentDefinitions;
  const listModels = async (appId: string): Promise<JsonObject[]> => {
    const all: AgentRecord[] = [];
    for (let cursor: string | null = null; ;) {
      const page = await agents.list(appId, { limit: AGENT_PAGE, cursor });
      all.push(...page.data);
      if (page.nextCursor === null) return modelList(all);
      cursor = page.nextCursor;
    }
  };

  app.get('/v1/models', async (request) => ({ object: 'list', data: await listModels(request.principal.appId) }));

  // A wildcard, since provider model ids may hold a '/' (`ollama:library/llama3`).
  app.get<{ Params: { '*': string } }>('/v1/models/*', async (request) => {
    const id = request.params['*'];
    const found = (await listModels(request.principal.appId)).find((model) => model.id === id);
    if (!found) {
      throw new BatonError('model_not_found', `The model '${id}' does not exist.`, {
        param: 'model',
        data: { model: id },
      });
    }
    return found;
  });
}
