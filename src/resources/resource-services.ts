import type { z } from 'zod';
import { AgentResourceService } from './agents/agent-resource-service.ts';
import {
  createAgentRequestSchema,
  deleteAgentRequestSchema,
  getAgentRequestSchema,
  listAgentsRequestSchema,
  updateAgentRequestSchema,
} from './agents/agent-schemas.ts';
import { AgentWriter } from './agents/agent-writes.ts';
import {
  createAppRequestSchema,
  deleteAppRequestSchema,
  getAppRequestSchema,
  listAppsRequestSchema,
  updateAppRequestSchema,
} from './apps/app-schemas.ts';
import { AppService } from './apps/app-service.ts';
import { SecretService } from './secrets/secret-service.ts';
import type { CesResourceDependencies } from './aip/service-support.ts';
import {
  createToolRequestSchema,
  deleteToolRequestSchema,
  getToolRequestSchema,
  listToolsRequestSchema,
  updateToolRequestSchema,
} from './tools/tool-schemas.ts';
import { AppResourceService } from './app-resources/app-resource-crud.ts';
import { toolKind } from './tools/tool-resource.ts';
import { toolsetKind } from './toolsets/toolset-resource.ts';
import {
  createToolsetRequestSchema,
  deleteToolsetRequestSchema,
  getToolsetRequestSchema,
  listToolsetsRequestSchema,
  updateToolsetRequestSchema,
} from './toolsets/toolset-schemas.ts';

/** The CES management services, one per resource family; REST and MCP both call these. */
export interface CesResourceServices {
  apps: AppService;
  agents: AgentResourceService;
  tools: AppResourceService;
  toolsets: AppResourceService;
  /** REST only: secret values must not travel through a model's context. */
  secrets: SecretService;
}

export function createCesResourceServices(deps: CesResourceDependencies): CesResourceServices {
  const writer = new AgentWriter(deps.agents);
  return {
    apps: new AppService(deps),
    agents: new AgentResourceService(deps, writer),
    tools: new AppResourceService(toolKind, CES_REQUEST_SCHEMAS.tools, deps, writer),
    toolsets: new AppResourceService(toolsetKind, CES_REQUEST_SCHEMAS.toolsets, deps, writer),
    secrets: new SecretService(deps),
  };
}

export type CesFamily = Exclude<keyof CesResourceServices, 'secrets'>;
export type CesMethod = 'create' | 'get' | 'list' | 'update' | 'delete';

/**
 * The request message of every method the MCP server publishes (`create_toolset` is
 * `toolsets.create`): `z.toJSONSchema` of it is the tool's inputSchema, the REST request in JSON.
 * Secrets are deliberately absent: their values must not travel through a model's context.
 */
export const CES_REQUEST_SCHEMAS: Readonly<Record<CesFamily, Readonly<Record<CesMethod, z.ZodType>>>> = {
  apps: {
    create: createAppRequestSchema,
    get: getAppRequestSchema,
    list: listAppsRequestSchema,
    update: updateAppRequestSchema,
    delete: deleteAppRequestSchema,
  },
  agents: {
    create: createAgentRequestSchema,
    get: getAgentRequestSchema,
    list: listAgentsRequestSchema,
    update: updateAgentRequestSchema,
    delete: deleteAgentRequestSchema,
  },
  tools: {
    create: createToolRequestSchema,
    get: getToolRequestSchema,
    list: listToolsRequestSchema,
    update: updateToolRequestSchema,
    delete: deleteToolRequestSchema,
  },
  toolsets: {
    create: createToolsetRequestSchema,
    get: getToolsetRequestSchema,
    list: listToolsetsRequestSchema,
    update: updateToolsetRequestSchema,
    delete: deleteToolsetRequestSchema,
  },
};
