import type { AgentDefinition, ClientToolDefinition, ContentPart, JsonValue } from '../../domain/records.ts';

/** One call Baton runs itself, as the tools layer receives it. */
export interface ServerCall {
  appId: string;
  conversationId: string;
  turnId: string;
  callId: string;
  agentName: string;
  tool: ClientToolDefinition;
  arguments: JsonValue;
  /** Aborted on cancel, on shutdown and at the call's deadline. */
  signal: AbortSignal;
  /** The turn asked for tool fakes (CES `useToolFakes`): a tool with fake mode on runs its fake. */
  useFakes: boolean;
}

export interface ServerCallResult {
  output: ContentPart[];
  isError: boolean;
  /** The result came from the tool's fake, not the tool. */
  faked?: boolean;
}

/**
 * The app's tools as the engine sees them: the definitions an agent may call besides its inline
 * ones, and a way to run the calls Baton executes itself (OpenAPI, MCP toolsets, sandboxed
 * JavaScript). Implemented below the faces by the app resources, over the tool runtimes; the
 * engine never reads a Tool resource or makes a network call itself.
 */
export interface ToolProvider {
  /**
   * The tools an agent refers to, read when a turn starts: its client functions (Tool resources
   * by id, and built-in system tools) and the server tools of its tools and toolsets.
   */
  listTools(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]>;
  /** Runs one call. Failures the model should see are results with `isError`, not exceptions. */
  run(call: ServerCall): Promise<ServerCallResult>;
  /**
   * The fake's answer to a call of a client function with fake mode on (`tool.fake`), or null to
   * let the client answer it as usual. Server tools run their fakes inside `run`.
   */
  fake?(call: ServerCall): Promise<ServerCallResult | null>;
}

/** The provider of an engine without app tools: agents have their inline tools only. */
export const NO_APP_TOOLS: ToolProvider = {
  listTools: async () => [],
  run: async (call) => ({
    output: [{ type: 'text', text: `Tool '${call.tool.name}' has no executor on this server.` }],
    isError: true,
  }),
};
