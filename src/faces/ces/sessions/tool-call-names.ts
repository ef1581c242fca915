import type { AgentDefinition, AppRecord } from '../../../domain/records.ts';
import { appResourceName, type ToolSources } from '../../../resources/index.ts';

/** A CES ToolCall / ToolResponse names its tool by a Tool resource, or by one tool of a toolset. */
export type ToolRef = { tool: string } | { toolsetTool: { toolset: string; toolId: string } };

/** How a call of a function name is named on the wire: its tool reference and its display name. */
export type ToolIdentity = ToolRef & { displayName: string };

/**
 * Maps the function names the model calls to the resources they come from, so a call's
 * `tool` / `toolsetTool` is something the client can match (and must echo in its response):
 * client functions by their Tool resource, server tools by the source the resources report
 * (a Tool, or a toolset's tool). A tool declared inline on a Baton agent has no resource; it is
 * named `…/tools/{function name}`.
 */
export class ToolCallNames {
  private constructor(
    private readonly app: AppRecord,
    private readonly byFunction: Map<string, ToolIdentity>,
  ) {}

  static async load(
    tools: ToolSources | undefined,
    app: AppRecord,
    agent: AgentDefinition | undefined,
  ): Promise<ToolCallNames> {
    const byFunction = new Map<string, ToolIdentity>();
    const prefix = appResourceName(app);
    // A client function's source is its Tool resource, which wins over a server tool of the same name.
    for (const [name, source] of agent && tools ? await tools.toolSources(app.id, agent) : []) {
      const { collection, resourceId, toolName } = source;
      byFunction.set(
        name,
        collection === 'toolsets'
          ? {
              toolsetTool: { toolset: `${prefix}/toolsets/${resourceId}`, toolId: toolName ?? name },
              displayName: name,
            }
          : { tool: `${prefix}/tools/${resourceId}`, displayName: name },
      );
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
