import type { z } from 'zod';
import { AgentResourceService } from './agent-resource-service.ts';
import { createAgentRequestSchema, deleteAgentRequestSchema, getAgentRequestSchema, listAgentsRequestSchema, updateAgentRequestSchema } from './agent-schemas.ts';
import { AgentWriter } from './agent-writes.ts';
import { createAppRequestSchema, deleteAppRequestSchema, getAppRequestSchema, listAppsRequestSchema, updateAppRequestSchema } from './app-schemas.ts';
import { AppService } from './app-service.ts';
import { SecretService } from './secret-service.ts';
import type { CesResourceDependencies } from './service-support.ts';
import { createToolRequestSchema, deleteToolRequestSchema, getToolRequestSchema, listToolsRequestSchema, updateToolRequestSchema } from './tool-schemas.ts';
import { ToolService } from './tool-service.ts';
import { ToolsetService } from './toolset-service.ts';
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
  tools: ToolService;
  toolsets: ToolsetService;
  /** REST only: secret values must not travel through a model's context. */
  secrets: SecretService;
}

export function createCesResourceServices(deps: CesResourceDependencies): CesResourceServices {
  const writer = new AgentWriter(deps.agents);
  return {
    apps: new AppService(deps),
    agents: new AgentResourceService(deps, writer),
    tools: new ToolService(deps, writer),
    toolsets: new ToolsetService(deps, writer),
    secrets: new SecretService(deps),
  };
}

type Family = Exclude<keyof CesResourceServices, 'secrets'>;
type Method = 'create' | 'get' | 'list' | 'update' | 'delete';

export interface CesMethod {
  family: Family;
  method: Method;
  /** The request message; `z.toJSONSchema(requestSchema)` is the MCP tool's inputSchema. */
  requestSchema: z.ZodType;
}

/**
 * The CES MCP tools (snake_case RPC names) and the service method behind each: the input is the
 * REST request message, the output the REST response. Secrets are deliberately absent.
 */
export const CES_RESOURCE_METHODS: Readonly<Record<string, CesMethod>> = {
  create_app: { family: 'apps', method: 'create', requestSchema: createAppRequestSchema },
  get_app: { family: 'apps', method: 'get', requestSchema: getAppRequestSchema },
  list_apps: { family: 'apps', method: 'list', requestSchema: listAppsRequestSchema },
  update_app: { family: 'apps', method: 'update', requestSchema: updateAppRequestSchema },
  delete_app: { family: 'apps', method: 'delete', requestSchema: deleteAppRequestSchema },
  create_agent: { family: 'agents', method: 'create', requestSchema: createAgentRequestSchema },
  get_agent: { family: 'agents', method: 'get', requestSchema: getAgentRequestSchema },
  list_agents: { family: 'agents', method: 'list', requestSchema: listAgentsRequestSchema },
  update_agent: { family: 'agents', method: 'update', requestSchema: updateAgentRequestSchema },
  delete_agent: { family: 'agents', method: 'delete', requestSchema: deleteAgentRequestSchema },
  create_tool: { family: 'tools', method: 'create', requestSchema: createToolRequestSchema },
  get_tool: { family: 'tools', method: 'get', requestSchema: getToolRequestSchema },
  list_tools: { family: 'tools', method: 'list', requestSchema: listToolsRequestSchema },
  update_tool: { family: 'tools', method: 'update', requestSchema: updateToolRequestSchema },
  delete_tool: { family: 'tools', method: 'delete', requestSchema: deleteToolRequestSchema },
  create_toolset: { family: 'toolsets', method: 'create', requestSchema: createToolsetRequestSchema },
  get_toolset: { family: 'toolsets', method: 'get', requestSchema: getToolsetRequestSchema },
  list_toolsets: { family: 'toolsets', method: 'list', requestSchema: listToolsetsRequestSchema },
  update_toolset: { family: 'toolsets', method: 'update', requestSchema: updateToolsetRequestSchema },
  delete_toolset: { family: 'toolsets', method: 'delete', requestSchema: deleteToolsetRequestSchema },
};
