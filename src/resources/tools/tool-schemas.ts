import { z } from 'zod';
import {
  apiAuthenticationSchema,
  durationSchema,
  executionTypeSchema,
  serviceDirectoryConfigSchema,
  tlsConfigSchema,
  requireApprovalSchema,
  toolFakeConfigSchema,
  toolSchemaObject,
  unsupportedMember,
} from './common-schemas.ts';
import { listRequestFields } from '../aip/list-resources.ts';

/** The CES Tool message (Baton's subset: clientFunction, openApiTool, jsFunction) and its request messages. */

const outputOnly = (what: string) => z.string().optional().describe(`Output only: ${what}. Ignored on input.`);
const notSupported = 'Baton supports clientFunction, openApiTool and jsFunction tools.';

export const toolSchema = z.strictObject({
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
  clientFunction: z
    .strictObject({
      name: z.string().optional().describe('Required. ^[a-zA-Z0-9_-]{1,64}$; the name the model calls.'),
      description: z.string().optional(),
      parameters: toolSchemaObject.optional(),
      response: toolSchemaObject.optional(),
    })
    .optional()
    .describe('One of tool_type: a function the client runs; the turn pauses until it answers.'),
  openApiTool: z
    .strictObject({
      openApiSchema: z.string().optional().describe('Required. The OpenAPI document, JSON or YAML.'),
      name: z.string().optional(),
      description: z.string().optional(),
      apiAuthentication: apiAuthenticationSchema.optional(),
      tlsConfig: tlsConfigSchema.optional(),
      serviceDirectoryConfig: serviceDirectoryConfigSchema,
      ignoreUnknownFields: z.boolean().optional(),
      url: z.string().optional(),
    })
    .optional()
    .describe('One of tool_type: one operation of an HTTP API.'),
  jsFunction: z
    .strictObject({
      name: z.string().optional().describe('Required. ^[a-zA-Z0-9_-]{1,64}$; the function jsCode defines.'),
      description: z.string().optional(),
      parameters: toolSchemaObject.optional(),
      response: toolSchemaObject.optional(),
      jsCode: z.string().optional().describe('Required. JavaScript source defining the function.'),
    })
    .optional()
    .describe("One of tool_type: JavaScript run by Baton (Baton's replacement for pythonFunction)."),
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

export const createToolRequestSchema = z.strictObject({
  parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
  toolId: z.string().optional().describe('^[a-zA-Z0-9_-]{1,64}$; generated when absent.'),
  tool: toolSchema,
});

export const getToolRequestSchema = z.strictObject({
  name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/tools/{tool}.'),
});

export const listToolsRequestSchema = z.strictObject({
  parent: z.string().describe('The app: projects/{p}/locations/{l}/apps/{a}.'),
  ...listRequestFields,
});

export const updateToolRequestSchema = z.strictObject({
  tool: toolSchema.describe('The tool; `name` says which one.'),
  updateMask: z
    .string()
    .optional()
    .describe(
      'Comma-separated camelCase paths, e.g. "clientFunction.description". Absent or "*" replaces every field.',
    ),
});

export const deleteToolRequestSchema = z.strictObject({
  name: z.string().describe('projects/{p}/locations/{l}/apps/{a}/tools/{tool}.'),
  force: z.boolean().optional().describe('Also remove the tool from the agents that use it.'),
  etag: z.string().optional().describe('Delete only if the tool still has this etag.'),
});
