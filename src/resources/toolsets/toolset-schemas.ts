import { z } from 'zod';
import {
  apiAuthenticationSchema,
  durationSchema,
  executionTypeSchema,
  serviceDirectoryConfigSchema,
  tlsConfigSchema,
  requireApprovalSchema,
  toolFakeConfigSchema,
  unsupportedMember,
} from '../tools/common-schemas.ts';
import { listRequestFields } from '../aip/list-resources.ts';

/** The CES Toolset message and the request messages of its five methods (REST bodies = MCP inputs). */

const outputOnly = (what: string) => z.string().optional().describe(`Output only: ${what}. Ignored on input.`);

export const toolsetSchema = z.strictObject({
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
  mcpToolset: z
    .strictObject({
      serverAddress: z
        .string()
        .optional()
        .describe('Required. Streamable HTTP address of the MCP server, e.g. "https://example.com/mcp/".'),
      apiAuthentication: apiAuthenticationSchema.optional(),
      serviceDirectoryConfig: serviceDirectoryConfigSchema,
      tlsConfig: tlsConfigSchema.optional(),
      customHeaders: z.record(z.string(), z.string()).optional().describe('Header name → $context.variables.NAME.'),
      toolOverrides: z
        .array(
          z.strictObject({
            tool: z.string().optional().describe('Required. The tool name the server reports.'),
            nameOverride: z.string().optional(),
            descriptionOverride: z.string().optional(),
            snapshot: z.record(z.string(), z.unknown()).optional().describe('Output only. Ignored on input.'),
          }),
        )
        .optional(),
    })
    .optional()
    .describe('One of toolset_type: tools served by an MCP server.'),
  openApiToolset: z
    .strictObject({
      openApiSchema: z.string().optional().describe('Required. The OpenAPI document, JSON or YAML.'),
      apiAuthentication: apiAuthenticationSchema.optional(),
      tlsConfig: tlsConfigSchema.optional(),
      serviceDirectoryConfig: serviceDirectoryConfigSchema,
      ignoreUnknownFields: z.boolean().optional(),
      url: z.string().optional().describe('Server URL; replaces the schema servers.'),
    })
    .optional()
    .describe('One of toolset_type: tools from an OpenAPI document.'),
  connectorToolset: unsupportedMember(
    'Integration Connectors are a Google Cloud service; use openApiToolset or mcpToolset.',
  ),
});

export const createToolsetRequestSchema = z.strictObject({
  parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
  toolsetId: z.string().optional().describe('^[a-zA-Z0-9_-]{1,64}$; generated when absent.'),
  toolset: toolsetSchema,
});

export const getToolsetRequestSchema = z.strictObject({
  name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/toolsets/{toolset}.'),
});

export const listToolsetsRequestSchema = z.strictObject({
  parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
  ...listRequestFields,
});

export const updateToolsetRequestSchema = z.strictObject({
  toolset: toolsetSchema.describe('The toolset; `name` says which one.'),
  updateMask: z
    .string()
    .optional()
    .describe(
      'Comma-separated camelCase paths, e.g. "displayName,mcpToolset.serverAddress". Absent or "*" replaces every field.',
    ),
});

export const deleteToolsetRequestSchema = z.strictObject({
  name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/toolsets/{toolset}.'),
  force: z.boolean().optional().describe('Also remove the toolset from the agents that use it.'),
  etag: z.string().optional().describe('Delete only if the toolset still has this etag.'),
});
