import type { Store } from '../store/store.ts';
import type { OpenApiCompiler } from '../tools/openapi/openapi-pool.ts';
import type { AgentService } from './agents/agent-service.ts';
import type { ApiKeyCache } from './keys/api-key-cache.ts';
import type { ServerKeys } from './keys/server-keys.ts';
import type { ToolKindRegistry } from './tool-kinds/registry.ts';

/** What the resource services share: the store, agent writes, the server's keys, the tool kinds, the key cache, the OpenAPI reader. */
export interface ResourceDependencies {
  store: Store;
  agents: AgentService;
  keys: ServerKeys;
  kinds: ToolKindRegistry;
  /** Forgets cached keys of a deleted app, so they stop authenticating at once. */
  keyCache: ApiKeyCache;
  openApi: OpenApiCompiler;
  /** Where a service reports what failed after its answer was decided (an app purge the sweeper will resume). */
  logger: { warn(details: object, message: string): void };
}
