import { BatonError } from '../../domain/errors/baton-error.ts';
import { z } from 'zod';
import type { Principal } from '../../domain/principal.ts';
import type { AppResourceRecord, JsonObject } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import type { InspectedTool } from '../tool-kinds/tool-kind.ts';
import type { ToolsetInspector } from '../tools/app-tool-provider.ts';
import { resolveApp } from '../apps/app-access.ts';
import { formatAppName, formatChildName, parseChildName } from '../aip/resource-names.ts';
import { parseCesRequest } from '../aip/request-message.ts';

/**
 * CES `ToolService.RetrieveTools`: `POST /v1/{toolset}:retrieveTools` with `{toolIds?}` →
 * `{tools: Tool[]}`, each tool named `{toolset}/tools/{toolId}`, listed by the toolset's kind: MCP
 * toolsets ask their server now (without credentials, as listing always is); when it does not
 * answer, the pinned snapshot is returned with `snapshot: {pinTime, reason}` (a Baton extension),
 * and without one the answer is UNAVAILABLE. OpenAPI toolsets return their operations.
 */

export const retrieveToolsRequestSchema = z.strictObject({
  toolset: z.string().describe('Required. projects/{p}/locations/{l}/apps/{a}/toolsets/{toolset}.'),
  toolIds: z
    .array(z.string())
    .optional()
    .describe(
      'Optional. The tools to return (ids as the toolset reports them, or an MCP nameOverride); all when empty.',
    ),
});

/** The ids shown when a toolId is not found, at most this many. */
const MAX_LISTED_IDS = 20;

export class RetrieveToolsService {
  constructor(
    private readonly store: Store,
    private readonly inspector: ToolsetInspector | undefined,
  ) {}

  async retrieveTools(principal: Principal, request: unknown): Promise<JsonObject> {
    const parsed = parseCesRequest(retrieveToolsRequestSchema, request);
    const path = parseChildName(parsed.toolset, 'toolsets', 'toolset');
    const app = await resolveApp(this.store, principal, path.project, path.location, path.app);
    const record = await this.store.resources.get(app.id, 'toolsets', path.id);
    const toolsetName = formatChildName(path, 'toolsets', path.id);
    if (!record) {
      throw new BatonError(
        'toolset_not_found',
        `Toolset '${toolsetName}' was not found. List them with GET /v1/${formatAppName(path)}/toolsets.`,
        { param: 'toolset' },
      );
    }
    if (!this.inspector) {
      throw new BatonError(
        'retrieve_tools_unavailable',
        `This Baton runs without its toolset executor (a test double replaces it), so it cannot list the tools of '${toolsetName}'.`,
      );
    }
    // The toolset's kind asks its source (and says why not, naming the toolset, when it cannot).
    const inspection = await this.inspector.inspectToolset(record, toolsetName);
    const tools = select(inspection.tools, parsed.toolIds ?? [], toolsetName);
    const rendered = tools.map((tool) => renderTool(tool, toolsetName, record));
    if (inspection.snapshot === null) return { tools: rendered };
    return { tools: rendered, snapshot: inspection.snapshot };
  }
}

/** The tools `toolIds` names, in the toolset's order; every id must name one (INVALID_ARGUMENT naming it). */
function select(tools: readonly InspectedTool[], toolIds: readonly string[], toolsetName: string): InspectedTool[] {
  if (toolIds.length === 0) return [...tools];
  toolIds.forEach((toolId, index) => {
    if (tools.some((tool) => tool.id === toolId || tool.name === toolId)) return;
    const known = tools.map((tool) => tool.id);
    const shown =
      known.length > MAX_LISTED_IDS
        ? `${known.slice(0, MAX_LISTED_IDS).join(', ')}, … (${known.length} in all)`
        : known.join(', ') || 'none';
    throw new BatonError(
      'unknown_tool_id',
      `toolIds[${index}] '${toolId.slice(0, 200)}' is not a tool of toolset '${toolsetName}'; its tools are: ${shown}.`,
      {
        param: `toolIds[${index}]`,
      },
    );
  });
  const wanted = new Set(toolIds);
  return tools.filter((tool) => wanted.has(tool.id) || wanted.has(tool.name));
}

/**
 * A CES Tool of the toolset, named `{toolset}/tools/{toolId}`: the fields every such tool has,
 * then the kind's own member (`mcpTool`, `openApiTool`). Schemas are the JSON Schema the model
 * receives, not converted to CES Schema.
 */
function renderTool(tool: InspectedTool, toolsetName: string, record: AppResourceRecord): JsonObject {
  return {
    name: `${toolsetName}/tools/${tool.id}`,
    displayName: tool.name,
    ...(typeof record.body.executionType === 'string' ? { executionType: record.body.executionType } : {}),
    ...tool.wire,
  };
}
