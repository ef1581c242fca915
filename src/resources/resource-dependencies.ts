import type { Store } from '../store/store.ts';
import type { OpenApiCompiler } from '../tools/openapi/openapi-pool.ts';
import type { AgentService } from './agents/agent-service.ts';
import type { ServerKeys } from './keys/server-keys.ts';
import type { ToolKindRegistry } from './tool-kinds/registry.ts';

/** What the resource services share: the store, agent writes, the server's keys, the tool kinds, the OpenAPI reader. */
export interface ResourceDependencies {
  store: Store;
  agents: AgentService;
  keys: ServerKeys;
  kinds: ToolKindRegistry;
  openApi: OpenApiCompiler;
}
