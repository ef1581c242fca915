import type { ToolProvider } from '../../../engine/index.ts';
import type { AgentDefinition, AppRecord, ClientToolDefinition } from '../../../domain/records.ts';
import type { Store } from '../../../store/store.ts';
import { appResourceName } from '../../../resources/apps/app-access.ts';

/** A CES ToolCall / ToolResponse names its tool by a Tool resource, or by one tool of a toolset. */
export type ToolRef = { tool: string } | { toolsetTool: { toolset: string; toolId: string } };

/** How a call of a function name is named on the wire: its tool reference and its display name. */
export type ToolIdentity = ToolRef & { displayName: string };

/**
 * Maps the function names the model calls to the resources they come from, so a call's
 * `tool` / `toolsetTool` is something the client can match (and must echo in its response):
 * client functions by their Tool resource, server tools by the source the tool provider reports
 * (a Tool, or a toolset's tool). A tool declared inline on a Baton agent has no resource; it is
 * named `…/tools/{function name}`.
 */
export class ToolCallNames {
  private constructor(
    private readonly app: AppRecord,
    private readonly byFunction: Map<string, ToolIdentity>,
  ) {}

  static async load(
    store: Store,
    app: AppRecord,
    agent: AgentDefinition | undefined,
    tools?: ToolProvider,
  ): Promise<ToolCallNames> {
    const byFunction = new Map<string, ToolIdentity>();
    const prefix = appResourceName(app);
    for (const tool of agent && tools ? await serverTools(tools, app.id, agent) : []) {
      if (!tool.server) continue;
      const { collection, resourceId, toolName } = tool.server;
      byFunction.set(
        tool.name,
        collection === 'toolsets'
          ? {
              toolsetTool: { toolset: `${prefix}/toolsets/${resourceId}`, toolId: toolName ?? tool.name },
              displayName: tool.name,
            }
          : { tool: `${prefix}/tools/${resourceId}`, displayName: tool.name },
      );
    }
    // Client functions last: a Tool resource the agent names directly wins over a server source.
    const records = agent?.toolIds?.length ? await store.resources.getMany(app.id, 'tools', agent.toolIds) : [];
    for (const record of records) {
      const fn = record.body.clientFunction;
      if (fn && typeof fn === 'object' && !Array.isArray(fn) && typeof fn.name === 'string') {
        byFunction.set(fn.name, { tool: `${prefix}/tools/${record.id}`, displayName: fn.name });
      }
    }
    return new ToolCallNames(app, byFunction);
  }

  identify(functionName: string): ToolIdentity {
    return (
      this.byFunction.get(functionName) ?? {
        tool: `${appResourceName(this.app)}/tools/${functionName}`,
        displayName: functionName,
      }
    );
  }
}

/** The reference part of an identity, as a plain object to spread into a ToolCall or ToolResponse. */
export function toolRefOf(identity: ToolIdentity): ToolRef {
  return 'toolsetTool' in identity ? { toolsetTool: { ...identity.toolsetTool } } : { tool: identity.tool };
}

/** Whether a reference a client sent names the same tool as `identity`. */
export function sameToolRef(
  identity: ToolIdentity,
  ref: { tool?: string | undefined; toolsetTool?: { toolset: string; toolId: string } | undefined },
): boolean {
  if ('toolsetTool' in identity)
    return (
      ref.tool === undefined &&
      ref.toolsetTool?.toolset === identity.toolsetTool.toolset &&
      ref.toolsetTool.toolId === identity.toolsetTool.toolId
    );
  return ref.toolsetTool === undefined && ref.tool === identity.tool;
}

/** A reference for error messages: the Tool name, or `toolset#toolId`. */
export function describeToolRef(ref: {
  tool?: string | undefined;
  toolsetTool?: { toolset: string; toolId: string } | undefined;
}): string {
  if (ref.toolsetTool) return `${ref.toolsetTool.toolset}#${ref.toolsetTool.toolId}`;
  return ref.tool ?? '(none)';
}

/**
 * Listing server tools may reach a toolset's server (an MCP toolset lists its tools on demand).
 * Naming must never fail a session or a conversation read because of that: without the list,
 * server calls fall back to `…/tools/{function name}`.
 */
async function serverTools(
  tools: ToolProvider,
  appId: string,
  agent: AgentDefinition,
): Promise<ClientToolDefinition[]> {
  try {
    return await tools.listTools(appId, agent);
  } catch {
    return [];
  }
}
