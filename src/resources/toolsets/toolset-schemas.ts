import { z } from 'zod';
import {
  durationSchema,
  executionTypeSchema,
  idempotentSchema,
  requireApprovalSchema,
  toolFakeConfigSchema,
  unsupportedMember,
} from '../tools/common-schemas.ts';
import { listRequestFields } from '../aip/list-resources.ts';
import type { ResourceRequestSchemas } from '../app-resources/app-resource-service.ts';
import { kindMembers } from '../tool-kinds/kind-members.ts';
import type { ToolKindRegistry } from '../tool-kinds/registry.ts';

/** The CES Toolset message and the request messages of its five methods (REST bodies = MCP inputs). */

const outputOnly = (what: string) => z.string().optional().describe(`Output only: ${what}. Ignored on input.`);

/** The CES Toolset message: the fields every toolset has, then the registry's kinds (one of `toolset_type`). */
export function toolsetSchema(kinds: ToolKindRegistry) {
  return z.strictObject({
    name: z
      .string()
      .optional()
      .describe(
        'projects/{p}/locations/{l}/apps/{a}/toolsets/{toolset}. Ignored on create; identifies the toolset on update.',
      ),
    displayName: z.string().optional().describe('Unique within the app.'),
    description: z.string().optional(),
    createTime: outputOnly('RFC 3339 creation time'),
    updateTime: outputOnly('RFC 3339 time of the last update'),
    etag: z
      .string()
      .optional()
      .describe('On update: the etag you read. A stale one is ABORTED; empty means the last write wins.'),
    executionType: executionTypeSchema.optional(),
    timeout: durationSchema.optional(),
    toolFakeConfig: toolFakeConfigSchema.optional(),
    requireApproval: requireApprovalSchema,
    idempotent: idempotentSchema,
    ...kindMembers(kinds.toolsets),
    connectorToolset: unsupportedMember(
      'Integration Connectors are a Google Cloud service; use openApiToolset or mcpToolset.',
    ),
  });
}

/** The request messages of the five Toolset methods (REST bodies = MCP inputs), for the registry's kinds. */
export function toolsetRequestSchemas(kinds: ToolKindRegistry): ResourceRequestSchemas {
  const toolset = toolsetSchema(kinds);
  return {
    create: z.strictObject({
      parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
      toolsetId: z.string().optional().describe('^[a-zA-Z0-9_-]{1,64}$; generated when absent.'),
      toolset,
    }),
    get: z.strictObject({
      name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/toolsets/{toolset}.'),
    }),
    list: z.strictObject({
      parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
      ...listRequestFields,
    }),
    update: z.strictObject({
      toolset: toolset.describe('The toolset; `name` says which one.'),
      updateMask: z
        .string()
        .optional()
        .describe(
          'Comma-separated camelCase paths, e.g. "displayName,mcpToolset.serverAddress". Absent or "*" replaces every field.',
        ),
    }),
    delete: z.strictObject({
      name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/toolsets/{toolset}.'),
      force: z.boolean().optional().describe('Also remove the toolset from the agents that use it.'),
      etag: z.string().optional().describe('Delete only if the toolset still has this etag.'),
    }),
  };
}
