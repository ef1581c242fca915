import type { ServerCall, ServerCallResult } from '../../engine/ports/tool-provider.ts';
import type { ServerTools } from './server-tools.ts';
import type { AgentDefinition, AppResourceRecord, ClientToolDefinition, JsonSchema } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { OAuthTokenCache } from '../../tools/auth/oauth-token-cache.ts';
import type { EgressPolicy } from '../../tools/http/address-policy.ts';
import { McpToolsetClients } from '../../tools/mcp/mcp-toolset-client.ts';
import { isObject, type CallEnvironment } from './call-environment.ts';
import { commonSettings, CompiledSources } from '../tool-kinds/compiled-openapi.ts';
import { runToolFake } from './tool-fakes.ts';
import { McpToolCatalog } from '../tool-kinds/mcp-tool-lists.ts';
import { executeServerTool } from './server-tool-execution.ts';
import { textResult } from './tool-results.ts';

export interface AppToolProviderOptions {
  store: Store;
  /** Where outbound calls may go (`egress.allow`); everything private is refused otherwise. */
  policy: EgressPolicy;
  /** Resolves a secret resource name of an app to its value (the encrypted secret store). */
  readSecret(appId: string, reference: string): Promise<string>;
  logger: { warn(details: object, message: string): void };
}

const DEFAULT_TIMEOUT_SECONDS = 30;

/** One tool of a toolset as `:retrieveTools` shows it. */
export interface InspectedTool {
  /** Its id in the toolset: the name the MCP server reports, or the OpenAPI operation's name. */
  id: string;
  /** The name the model sees (an MCP `toolOverrides` nameOverride, else the id). */
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A toolset's tools, asked of its source now (the MCP server, the OpenAPI document). */
export interface ToolsetInspection {
  tools: InspectedTool[];
  /** MCP only: why the server's live list is unavailable; `tools` then holds the pinned snapshot, if any. */
  problem: string | null;
  /** MCP only: when the snapshot in `tools` was pinned; null when `tools` is the live list (or there is no snapshot). */
  snapshotTime: string | null;
}

/** What the CES face needs to show a toolset's tools (`ToolService.RetrieveTools`). */
export interface ToolsetInspector {
  /** Throws OpenApiError when an OpenAPI toolset's document no longer compiles. */
  inspectToolset(record: AppResourceRecord): Promise<ToolsetInspection>;
}

/**
 * The server-executed tools of an app's agents, built from its resources: `openApiTool` and
 * `jsFunction` Tools, and `openApiToolset` / `mcpToolset` Toolsets (whole or narrowed to tool
 * ids). Compiled forms are cached per resource revision, so an edit applies from the next turn.
 */
export class AppToolProvider implements ServerTools, ToolsetInspector {
  private readonly mcpClients = new McpToolsetClients();
  private readonly oauth = new OAuthTokenCache();
  private readonly catalog: McpToolCatalog;
  private readonly compiled = new CompiledSources();

  constructor(private readonly options: AppToolProviderOptions) {
    this.catalog = new McpToolCatalog(options.store, this.mcpClients, () => options.policy);
  }

  async listServerTools(appId: string, agent: AgentDefinition): Promise<ClientToolDefinition[]> {
    const { store } = this.options;
    const found: ClientToolDefinition[] = [];
    const tools = agent.toolIds?.length ? await store.resources.getMany(appId, 'tools', agent.toolIds) : [];
    for (const record of tools) found.push(...(await this.guard(record, () => this.compiled.toolDefinitions(record))));
    for (const reference of agent.toolsets ?? []) {
      const record = await store.resources.get(appId, 'toolsets', reference.toolsetId);
      if (!record) continue;
      const wanted = reference.toolIds?.length ? new Set(reference.toolIds) : undefined;
      const definitions = await this.guard(record, () => this.toolsetDefinitions(record));
      found.push(
        ...definitions.filter((tool) => !wanted || wanted.has(tool.name) || wanted.has(tool.server?.toolName ?? '')),
      );
    }
    return uniqueByName(found, (name) =>
      this.options.logger.warn(
        { appId, agent: agent.name, tool: name },
        'two server tools of the agent share a name; the first is used',
      ),
    );
  }

  async run(call: ServerCall): Promise<ServerCallResult> {
    const source = call.tool.server;
    if (!source) return textResult(`Tool '${call.tool.name}' is not a server tool.`, true);
    const record = await this.options.store.resources.get(call.appId, source.collection, source.resourceId);
    if (!record)
      return textResult(
        `Tool '${call.tool.name}' was removed from the app (${source.collection}/${source.resourceId}); it cannot run.`,
        true,
      );
    const environment = await this.environment(call);
    if (call.useFakes) {
      const faked = await runToolFake(record, source.toolName ?? record.id, call, environment);
      if (faked) return faked;
    }
    return executeServerTool({
      record,
      toolName: source.toolName,
      call,
      environment,
      compiled: this.compiled,
      oauth: this.oauth,
      mcp: { clients: this.mcpClients, catalog: this.catalog },
    });
  }

  async fake(call: ServerCall): Promise<ServerCallResult | null> {
    const source = call.tool.fake;
    if (!source) return null;
    const record = await this.options.store.resources.get(call.appId, source.collection, source.resourceId);
    return record ? runToolFake(record, record.id, call, await this.environment(call)) : null;
  }

  async inspectToolset(record: AppResourceRecord): Promise<ToolsetInspection> {
    const mcp = record.body.mcpToolset;
    if (!isObject(mcp))
      return {
        tools: (await this.compiled.toolsetDefinitions(record)).map(inspected),
        problem: null,
        snapshotTime: null,
      };
    // Asked afresh (without credentials, as for turns); the answer also refreshes what turns use.
    const listing = await this.catalog.list(record.appId, record.id, record.revision, mcp, {}, { fresh: true });
    return { tools: listing.definitions.map(inspected), problem: listing.problem, snapshotTime: listing.snapshotTime };
  }

  /** Closes pooled MCP connections (at shutdown). */
  async close(): Promise<void> {
    await this.mcpClients.close();
  }

  private async toolsetDefinitions(record: AppResourceRecord): Promise<ClientToolDefinition[]> {
    const mcp = record.body.mcpToolset;
    if (!isObject(mcp)) return this.compiled.toolsetDefinitions(record);
    // Listing sends no credentials and no session headers: CES lists tools without them.
    const listing = await this.catalog.list(record.appId, record.id, record.revision, mcp, {});
    if (listing.problem)
      this.options.logger.warn({ toolset: record.id, snapshot: listing.fromSnapshot }, listing.problem);
    return listing.definitions.map((definition) => ({ ...definition, ...commonSettings(record) }));
  }

  private async environment(call: ServerCall): Promise<CallEnvironment> {
    const session = await this.options.store.sessions.getByConversation(call.conversationId);
    return {
      appId: call.appId,
      conversationId: call.conversationId,
      callId: call.callId,
      variables: session?.variables ?? {},
      sessionId: session?.id ?? null,
      agentName: call.agentName,
      signal: call.signal,
      timeoutMs: (call.tool.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
      policy: this.options.policy,
      readSecret: (reference) => this.options.readSecret(call.appId, reference),
    };
  }

  /** A resource that cannot be compiled (it was valid when stored) costs its tools, not the turn. */
  private async guard(
    record: AppResourceRecord,
    work: () => Promise<ClientToolDefinition[]>,
  ): Promise<ClientToolDefinition[]> {
    try {
      return await work();
    } catch (error) {
      this.options.logger.warn(
        { err: error, resource: `${record.collection}/${record.id}` },
        'server tools unavailable',
      );
      return [];
    }
  }
}

function inspected(tool: ClientToolDefinition): InspectedTool {
  return {
    id: tool.server?.toolName ?? tool.name,
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  };
}

function uniqueByName(tools: readonly ClientToolDefinition[], onClash: (name: string) => void): ClientToolDefinition[] {
  const byName = new Map<string, ClientToolDefinition>();
  for (const tool of tools) {
    if (byName.has(tool.name)) onClash(tool.name);
    else byName.set(tool.name, tool);
  }
  return [...byName.values()];
}
