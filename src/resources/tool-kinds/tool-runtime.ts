import type { Repositories } from '../../store/store.ts';
import { OAuthTokenCache } from '../../tools/auth/oauth-token-cache.ts';
import type { EgressPolicy } from '../../tools/http/address-policy.ts';
import { McpToolsetClients } from '../../tools/mcp/mcp-toolset-client.ts';
import { CompiledOpenApi } from './compiled-openapi.ts';
import { McpToolLists } from './mcp-tool-lists.ts';

/**
 * The state the server kinds share across calls, held by the app's tool provider: compiled
 * OpenAPI documents, pooled MCP connections and their tool lists, OAuth tokens. A new kind that
 * needs none of it simply ignores it.
 */
export interface ToolRuntime {
  openApi: CompiledOpenApi;
  mcp: { clients: McpToolsetClients; lists: McpToolLists };
  oauth: OAuthTokenCache;
  logger: { warn(details: object, message: string): void };
}

export function createToolRuntime(
  store: Pick<Repositories, 'resources'>,
  policy: () => EgressPolicy,
  logger: ToolRuntime['logger'],
): ToolRuntime {
  const clients = new McpToolsetClients();
  return {
    openApi: new CompiledOpenApi(),
    mcp: { clients, lists: new McpToolLists(store, clients, policy) },
    oauth: new OAuthTokenCache(),
    logger,
  };
}
