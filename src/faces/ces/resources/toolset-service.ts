import type { Principal } from '../../../server/authenticate.ts';
import type { JsonObject } from '../../../store/records.ts';
import { assertOneOf } from '../aip/union-check.ts';
import { cesError } from '../ces-errors.ts';
import type { AgentWriter } from './agent-writes.ts';
import { AppResourceCrud, type ResourceKind } from './app-resource-crud.ts';
import {
  checkApiAuthentication,
  checkContextVariable,
  checkDuration,
  checkHttpUrl,
  checkOpenApiSchema,
  checkTlsConfig,
  checkToolFakeConfig,
  refuseUnsupported,
  requireText,
  type RuleContext,
} from './common-rules.ts';
import { asObject, parseCesRequest, toJsonObject, type CesResourceDependencies } from './service-support.ts';
import {
  createToolsetRequestSchema,
  deleteToolsetRequestSchema,
  getToolsetRequestSchema,
  listToolsetsRequestSchema,
  updateToolsetRequestSchema,
} from './toolset-schemas.ts';

const TOOLSET_TYPES = ['mcpToolset', 'openApiToolset', 'connectorToolset'];
const SERVICE_DIRECTORY = 'serviceDirectoryConfig is not supported by Baton (Service Directory is a Google Cloud service); give a reachable URL instead.';

async function checkMcpToolset(context: RuleContext, mcp: JsonObject): Promise<JsonObject> {
  const prefix = 'toolset.mcpToolset';
  refuseUnsupported(mcp, { serviceDirectoryConfig: `${prefix}.${SERVICE_DIRECTORY}` }, prefix);
  requireText(mcp, 'serverAddress', prefix);
  checkHttpUrl(mcp.serverAddress, `${prefix}.serverAddress`);
  await checkApiAuthentication(context, mcp.apiAuthentication, `${prefix}.apiAuthentication`);
  checkTlsConfig(mcp.tlsConfig, `${prefix}.tlsConfig`);
  for (const [header, value] of Object.entries(asObject(mcp.customHeaders) ?? {})) checkContextVariable(value, `${prefix}.customHeaders.${header}`);
  if (!Array.isArray(mcp.toolOverrides)) return mcp;
  // The snapshot is the server's copy of the tool as last seen: output only, never taken from a client.
  const toolOverrides = mcp.toolOverrides.map((entry, index) => {
    const { snapshot: _snapshot, ...override } = asObject(entry) ?? {};
    requireText(override, 'tool', `${prefix}.toolOverrides[${index}]`);
    return override;
  });
  return { ...mcp, toolOverrides };
}

async function checkOpenApiToolset(context: RuleContext, openApi: JsonObject): Promise<void> {
  const prefix = 'toolset.openApiToolset';
  refuseUnsupported(openApi, { serviceDirectoryConfig: `${prefix}.${SERVICE_DIRECTORY}` }, prefix);
  checkOpenApiSchema(openApi, prefix);
  checkHttpUrl(openApi.url, `${prefix}.url`);
  await checkApiAuthentication(context, openApi.apiAuthentication, `${prefix}.apiAuthentication`);
  checkTlsConfig(openApi.tlsConfig, `${prefix}.tlsConfig`);
}

/** displayName must be unique within the app (CES says so; Baton answers ALREADY_EXISTS). */
async function checkUniqueDisplayName(context: RuleContext, body: JsonObject, id: string): Promise<void> {
  if (typeof body.displayName !== 'string' || body.displayName === '') return;
  const toolsets = await context.store.resources.list(context.app.id, 'toolsets');
  const clash = toolsets.find((toolset) => toolset.id !== id && toolset.body.displayName === body.displayName);
  if (clash) {
    throw cesError(
      'ALREADY_EXISTS',
      'DUPLICATE_DISPLAY_NAME',
      `Toolset '${clash.id}' of this app already has displayName '${body.displayName}'; toolset display names must be unique within an app.`,
      { field: 'toolset.displayName' },
    );
  }
}

export const toolsetKind: ResourceKind = {
  collection: 'toolsets',
  singular: 'toolset',
  mask: {
    mutable: ['displayName', 'description', 'executionType', 'timeout', 'toolFakeConfig', ...TOOLSET_TYPES],
    outputOnly: ['name', 'createTime', 'updateTime', 'etag'],
    unions: [TOOLSET_TYPES],
  },
  filterFields: ['name', 'displayName', 'description', 'createTime', 'updateTime', 'etag', 'executionType', 'timeout', 'toolFakeConfig', 'mcpToolset', 'openApiToolset'],
  derived: () => ({}),
  async validate(context, body, id) {
    refuseUnsupported(
      body,
      { connectorToolset: 'connectorToolset is not supported by Baton (Integration Connectors are a Google Cloud service); use openApiToolset or mcpToolset.' },
      'toolset',
    );
    assertOneOf(body, TOOLSET_TYPES, 'toolset', { required: true, name: 'toolset_type' });
    checkDuration(body.timeout, 'toolset.timeout');
    checkToolFakeConfig(body.toolFakeConfig, 'toolset.toolFakeConfig');
    await checkUniqueDisplayName(context, body, id);
    const mcp = asObject(body.mcpToolset);
    if (mcp) return { ...body, mcpToolset: await checkMcpToolset(context, mcp) };
    await checkOpenApiToolset(context, asObject(body.openApiToolset) ?? {});
    return body;
  },
};

/**
 * Toolsets of an app (CES AgentService *Toolset methods). Every method takes the caller and the
 * CES request message, validates it, and returns the CES response message.
 */
export class ToolsetService {
  private readonly crud: AppResourceCrud;

  constructor(deps: CesResourceDependencies, writer: AgentWriter) {
    this.crud = new AppResourceCrud(toolsetKind, deps, writer);
  }

  /** CreateToolsetRequest `{parent, toolsetId?, toolset}` → Toolset. */
  async create(principal: Principal, request: unknown): Promise<JsonObject> {
    const { parent, toolsetId, toolset } = parseCesRequest(createToolsetRequestSchema, request);
    return this.crud.create(principal, parent, toolsetId, toJsonObject(toolset));
  }

  /** GetToolsetRequest `{name}` → Toolset. */
  async get(principal: Principal, request: unknown): Promise<JsonObject> {
    return this.crud.get(principal, parseCesRequest(getToolsetRequestSchema, request).name);
  }

  /** ListToolsetsRequest → `{toolsets, nextPageToken?}`. */
  async list(principal: Principal, request: unknown): Promise<JsonObject> {
    return this.crud.list(principal, parseCesRequest(listToolsetsRequestSchema, request));
  }

  /** UpdateToolsetRequest `{toolset, updateMask?}` → Toolset. */
  async update(principal: Principal, request: unknown): Promise<JsonObject> {
    const { toolset, updateMask } = parseCesRequest(updateToolsetRequestSchema, request);
    return this.crud.update(principal, toJsonObject(toolset), updateMask);
  }

  /** DeleteToolsetRequest `{name, force?, etag?}` → Empty. */
  async delete(principal: Principal, request: unknown): Promise<JsonObject> {
    const { name, force, etag } = parseCesRequest(deleteToolsetRequestSchema, request);
    return this.crud.delete(principal, name, { force, etag });
  }
}
