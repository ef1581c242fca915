import type { AgentDefinition, ClientToolDefinition } from '../../domain/records.ts';
import type { ToolProvider } from '../../engine/index.ts';

/**
 * The tools Baton executes itself (OpenAPI tools and toolsets, MCP toolsets, jsFunction), as
 * the app tool catalog composes them with the client functions. Tests put a recording double here.
 */
export interface ServerTools extends Pick<ToolProvider, 'run' | 'fake'> {
  /** The server tools an agent may call (from its tools and toolsets), read when a turn starts. */
  listServerTools(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]>;
}

/** No server tools configured: agents get none, and a stray call is answered with an error. */
export const NO_SERVER_TOOLS: ServerTools = {
  listServerTools: async () => [],
  run: async (call) => ({
    output: [{ type: 'text', text: `Tool '${call.tool.name}' has no executor on this server.` }],
    isError: true,
  }),
};
