import { BatonError } from '../../domain/errors/baton-error.ts';
import { z } from 'zod';
import type { Principal } from '../../domain/principal.ts';
import type { AppResourceRecord, JsonObject } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { OpenApiError } from '../../tools/openapi/openapi-error.ts';
import type { InspectedTool, ToolsetInspection, ToolsetInspector } from '../tools/app-tool-provider.ts';
import { resolveApp } from '../apps/app-access.ts';
import { formatAppName, formatChildName, parseChildName, type AppPath } from '../aip/resource-names.ts';
import { asObject, parseCesRequest } from '../aip/service-support.ts';

/**
 * CES `ToolService.RetrieveTools`: `POST /v1/{toolset}:retrieveTools` with `{toolIds?}` →
 * `{tools: Tool[]}`, each tool named `{toolset}/tools/{toolId}`. MCP toolsets ask their server now
 * (without credentials, as listing always is); when it does not answer, the pinned snapshot is
 * returned with `snapshot: {pinTime, reason}` (a Baton extension), and without one the answer is
 * UNAVAILABLE. OpenAPI toolsets return their operations.
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
    const inspection = await this.inspect(this.inspector, record, toolsetName);
    const mcp = asObject(record.body.mcpToolset);
    if (inspection.problem !== null && inspection.snapshotTime === null) {
      throw new BatonError(
        'mcp_server_unavailable',
        `${inspection.problem.replace(/\.+$/, '')}. The tools of toolset '${toolsetName}' are unavailable until the server answers (no snapshot of them was pinned yet); turns run without them meanwhile.`,
        { details: { toolset: toolsetName, server_address: String(mcp?.serverAddress ?? '') } },
      );
    }
    const tools = select(inspection.tools, parsed.toolIds ?? [], toolsetName);
    const rendered = tools.map((tool) => renderTool(tool, path, record, mcp));
    if (inspection.snapshotTime === null) return { tools: rendered };
    return { tools: rendered, snapshot: { pinTime: inspection.snapshotTime, reason: inspection.problem ?? '' } };
  }

  private async inspect(
    inspector: ToolsetInspector,
    record: AppResourceRecord,
    toolsetName: string,
  ): Promise<ToolsetInspection> {
    try {
      return await inspector.inspectToolset(record);
    } catch (error) {
      if (!(error instanceof OpenApiError)) throw error;
      throw new BatonError(
        'openapi_schema_invalid',
        `The OpenAPI document of toolset '${toolsetName}' no longer compiles: ${error.message}. Update the toolset.`,
        {
          details: { toolset: toolsetName },
        },
      );
    }
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
 * A CES Tool of the toolset: `mcpTool` (name, nameOverride, description, inputSchema, serverAddress)
 * or `openApiTool` (name, description, url, and `parameters`, a Baton extension). Schemas are the
 * JSON Schema the model receives, not converted to CES Schema.
 */
function renderTool(
  tool: InspectedTool,
  path: AppPath,
  record: AppResourceRecord,
  mcp: JsonObject | undefined,
): JsonObject {
  const common: JsonObject = {
    name: `${formatChildName(path, 'toolsets', record.id)}/tools/${tool.id}`,
    displayName: tool.name,
    ...(typeof record.body.executionType === 'string' ? { executionType: record.body.executionType } : {}),
  };
  if (mcp) {
    const mcpTool: JsonObject = {
      name: tool.id,
      description: tool.description,
      inputSchema: tool.parameters,
      serverAddress: String(mcp.serverAddress ?? ''),
    };
    if (tool.name !== tool.id) mcpTool.nameOverride = tool.name;
    return { ...common, mcpTool };
  }
  const openApi = asObject(record.body.openApiToolset) ?? {};
  const openApiTool: JsonObject = { name: tool.id, description: tool.description };
  if (typeof openApi.url === 'string' && openApi.url !== '') openApiTool.url = openApi.url;
  openApiTool.parameters = tool.parameters;
  return { ...common, openApiTool };
}
