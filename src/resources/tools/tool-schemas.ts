import { z } from 'zod';
import {
  durationSchema,
  executionTypeSchema,
  idempotentSchema,
  requireApprovalSchema,
  toolFakeConfigSchema,
  unsupportedMember,
} from './common-schemas.ts';
import { listRequestFields } from '../aip/list-resources.ts';
import type { ResourceRequestSchemas } from '../app-resources/app-resource-service.ts';
import { kindMembers } from '../tool-kinds/kind-members.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';
import { toolsSupported } from './tool-resource.ts';

/** The CES Tool message as Baton accepts it (its kinds come from the tool-kind registry) and its request messages. */

const outputOnly = (what: string) => z.string().optional().describe(`Output only: ${what}. Ignored on input.`);

/** The CES Tool message: the fields every tool has, then the registry's kinds (one of `tool_type`), then the refused ones. */
export function toolSchema(kinds: ToolKindRegistry) {
  const supported = kinds.keys('tools');
  const notSupported = toolsSupported(supported);
  return z.strictObject({
    name: z
      .string()
      .optional()
      .describe('projects/{p}/locations/{l}/apps/{a}/tools/{tool}. Ignored on create; identifies the tool on update.'),
    displayName: outputOnly("derived from the tool: the function's name"),
    createTime: outputOnly('RFC 3339 creation time'),
    updateTime: outputOnly('RFC 3339 time of the last update'),
    etag: z
      .string()
      .optional()
      .describe('On update: the etag you read. A stale one is ABORTED; empty means the last write wins.'),
    generatedSummary: outputOnly('a summary of the tool'),
    executionType: executionTypeSchema.optional(),
    timeout: durationSchema.optional(),
    toolFakeConfig: toolFakeConfigSchema.optional(),
    requireApproval: requireApprovalSchema,
    idempotent: idempotentSchema,
    ...kindMembers(kinds.tools),
    pythonFunction: unsupportedMember('use jsFunction with jsCode.'),
    mcpTool: unsupportedMember('MCP tools are managed through an MCP toolset.'),
    googleSearchTool: unsupportedMember(notSupported),
    connectorTool: unsupportedMember(notSupported),
    dataStoreTool: unsupportedMember(notSupported),
    fileSearchTool: unsupportedMember(notSupported),
    systemTool: unsupportedMember(notSupported),
    agentTool: unsupportedMember(notSupported),
    widgetTool: unsupportedMember(notSupported),
    remoteAgentTool: unsupportedMember(notSupported),
  });
}

/** The request messages of the five Tool methods, for the registry's kinds. */
export function toolRequestSchemas(kinds: ToolKindRegistry): ResourceRequestSchemas {
  const tool = toolSchema(kinds);
  return {
    create: z.strictObject({
      parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
      toolId: z.string().optional().describe('^[a-zA-Z0-9_-]{1,64}$; generated when absent.'),
      tool,
    }),
    get: z.strictObject({
      name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/tools/{tool}.'),
    }),
    list: z.strictObject({
      parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
      ...listRequestFields,
    }),
    update: z.strictObject({
      tool: tool.describe('The tool; `name` says which one.'),
      updateMask: z
        .string()
        .optional()
        .describe(
          'Comma-separated camelCase paths, e.g. "clientFunction.description". Absent or "*" replaces every field.',
        ),
    }),
    delete: z.strictObject({
      name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/tools/{tool}.'),
      force: z.boolean().optional().describe('Also remove the tool from the agents that use it.'),
      etag: z.string().optional().describe('Delete only if the tool still has this etag.'),
    }),
  };
}
