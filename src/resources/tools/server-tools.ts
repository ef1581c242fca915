import type { AgentDefinition, ClientToolDefinition } from '../../domain/records.ts';
import type { ServerCall, ServerCallResult } from '../../engine/index.ts';

/**
 * The tools Baton executes itself (OpenAPI tools and toolsets, MCP toolsets, jsFunction), as
 * the app tool catalog composes them with the client functions. Tests put a recording double here.
 */
export interface ServerTools {
  /** The server tools an agent may call (from its tools and toolsets), read when a turn starts. */
  listServerTools(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]>;
  /** Runs one call. Failures the model should see are results with `isError`, not exceptions. */
  run(call: ServerCall): Promise<ServerCallResult>;
  /**
   * The fake's answer to a call of a client function with fake mode on (`tool.fake`), or null to
   * let the client answer it as usual. Server tools run their fakes inside `run`.
   */
  fake?(call: ServerCall): Promise<ServerCallResult | null>;
}

/** No server tools configured: agents get none, and a stray call is answered with an error. */
export const NO_SERVER_TOOLS: ServerTools = {
  listServerTools: async () => [],
  run: async (call) => ({
    output: [{ type: 'text', text: `Tool '${call.tool.name}' has no executor on this server.` }],
    isError: true,
  }),
};
