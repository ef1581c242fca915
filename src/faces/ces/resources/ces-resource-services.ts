import type { z } from 'zod';
import { AgentResourceService } from './agent-resource-service.ts';
import {
  createAgentRequestSchema,
  deleteAgentRequestSchema,
  getAgentRequestSchema,
  listAgentsRequestSchema,
  updateAgentRequestSchema,
} from './agent-schemas.ts';
import { AgentWriter } from './agent-writes.ts';
import {
  createAppRequestSchema,
  deleteAppRequestSchema,
  getAppRequestSchema,
  listAppsRequestSchema,
  updateAppRequestSchema,
} from './app-schemas.ts';
import { AppService } from './app-service.ts';
import { SecretService } from './secret-service.ts';
import type { CesResourceDependencies } from './service-support.ts';
import {
  createToolRequestSchema,
  deleteToolRequestSchema,
  getToolRequestSchema,
  listToolsRequestSchema,
  updateToolRequestSchema,
} from './tool-schemas.ts';
import { AppResourceService } from './app-resource-crud.ts';
import { toolKind } from './tool-kind.ts';
import { toolsetKind } from './toolset-kind.ts';
import {
  createToolsetRequestSchema,
  deleteToolsetRequestSchema,
  getToolsetRequestSchema,
  listToolsetsRequestSchema,
  updateToolsetRequestSchema,
} from './toolset-schemas.ts';

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
