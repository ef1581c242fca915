import type { AgentDefinition, ClientToolDefinition, ServerToolSource } from '../../domain/records.ts';
import { SYSTEM_TOOLS, type ServerCall, type ServerCallResult, type ToolProvider } from '../../engine/index.ts';
import type { Repositories } from '../../store/store.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';
import type { ServerTools } from './server-tools.ts';

/** Where each function an agent may call comes from, so a face can name a call by its resource. */
export interface ToolSources {
  /**
   * Per function name: the Tool resource it comes from, or the toolset and the tool's name in
   * it. Server tools that cannot be listed right now are left out rather than failing the read.
   */
  toolSources(appId: string, agent: AgentDefinition): Promise<Map<string, ServerToolSource>>;
}

/**
 * The engine's view of an app's tools: the client functions an agent refers to (Tool resources of
 * a client-executed kind, and system tools by id), then the server tools of its tools and toolsets.
 */
export class AppToolCatalog implements ToolProvider, ToolSources {
  readonly fake?: (call: ServerCall) => Promise<ServerCallResult | null>;

  constructor(
    private readonly store: Pick<Repositories, 'resources'>,
    private readonly server: ServerTools,
    private readonly kinds: ToolKindRegistry,
  ) {
    const fake = server.fake?.bind(server);
    if (fake) this.fake = fake;
  }

  async listTools(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]> {
    return [...(await this.clientFunctions(appId, agent)), ...(await this.server.listServerTools(appId, agent))];
  }

  run(call: ServerCall): Promise<ServerCallResult> {
    return this.server.run(call);
  }

  async toolSources(appId: string, agent: AgentDefinition): Promise<Map<string, ServerToolSource>> {
    const sources = new Map<string, ServerToolSource>();
    for (const tool of await this.listToolsOrNone(appId, agent)) if (tool.server) sources.set(tool.name, tool.server);
    // Client functions last: a Tool resource the agent names directly wins over a server source.
    const ids = agent.toolIds ?? [];
    for (const record of ids.length > 0 ? await this.store.resources.getMany(appId, 'tools', ids) : []) {
      const name = this.kinds.clientDefinition(record)?.name;
      if (name !== undefined) sources.set(name, { collection: 'tools', resourceId: record.id });
    }
    return sources;
  }

  /**
   * The agent's tool ids, each the Tool resource if it exists (offered when the client runs it),
   * else a system tool by that id. Read when a turn starts, so an edited tool applies from the
   * next turn on.
   */
  private async clientFunctions(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]> {
    const ids = agent.toolIds ?? [];
    if (ids.length === 0) return [];
    const records = new Map(
      (await this.store.resources.getMany(appId, 'tools', ids)).map((record) => [record.id, record]),
    );
    return ids.flatMap((id) => {
      const record = records.get(id);
      const definition = record ? this.kinds.clientDefinition(record) : SYSTEM_TOOLS[id];
      return definition ? [definition] : [];
    });
  }

  /**
   * Listing server tools may reach a toolset's server (an MCP toolset lists its tools on demand).
   * Naming must never fail a read because of that: without the list, server calls go unnamed.
   */
  private async listToolsOrNone(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]> {
    try {
      return await this.listTools(appId, agent);
    } catch {
      return [];
    }
  }
}
