import type { Repositories } from '../../store/store.ts';
import { OAuthTokenCache } from '../../tools/auth/oauth-token-cache.ts';
import type { EgressPolicy } from '../../tools/http/address-policy.ts';
import { McpToolsetClients } from '../../tools/mcp/mcp-toolset-client.ts';
import type { OpenApiCompiler } from '../../tools/openapi/openapi-pool.ts';
import type { SandboxRunner } from '../../tools/sandbox/sandbox-runner.ts';
import { CompiledOpenApi } from './compiled-openapi.ts';
import { McpToolLists } from './mcp-tool-lists.ts';

/**
 * The state the server kinds share across calls, held by the app's tool provider: compiled
 * OpenAPI documents, pooled MCP connections and their tool lists, OAuth tokens, and the sandbox
 * jsFunction code runs in. A new kind that needs none of it simply ignores it.
 */
export interface ToolRuntime {
  openApi: CompiledOpenApi;
  mcp: { clients: McpToolsetClients; lists: McpToolLists };
  oauth: OAuthTokenCache;
  /** Where JavaScript runs: the server's worker pool (sandbox-pool.ts). */
  sandbox: SandboxRunner;
  logger: { warn(details: object, message: string): void };
}

export function createToolRuntime(
  store: Pick<Repositories, 'resources'>,
  policy: () => EgressPolicy,
  logger: ToolRuntime['logger'],
  workers: { sandbox: SandboxRunner; openApi: OpenApiCompiler },
): ToolRuntime {
  const clients = new McpToolsetClients();
  return {
    openApi: new CompiledOpenApi(workers.openApi),
    mcp: { clients, lists: new McpToolLists(store, clients, policy) },
    oauth: new OAuthTokenCache(),
    sandbox: workers.sandbox,
    logger,
  };
}
