import { z } from 'zod';
import { apiAuthenticationSchema, serviceDirectoryConfigSchema, tlsConfigSchema } from '../tools/common-schemas.ts';
import { runOpenApiCall } from './openapi-call.ts';
import { operationOfTool } from './openapi-source.ts';
import { asOpenApiError, checkOpenApiSource } from './openapi-source-rules.ts';
import type { ServerToolKind } from './tool-kind.ts';

/** A non-empty string setting, or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * `openApiTool`: one operation of an HTTP API described by an OpenAPI document (the only one it
 * has, or the one whose operationId is `name`), called by Baton through the egress guard.
 */
export const openApiToolKind: ServerToolKind = {
  key: 'openApiTool',
  collection: 'tools',
  executor: 'server',
  description: 'One of tool_type: one operation of an HTTP API.',
  schema: z.strictObject({
    openApiSchema: z.string().optional().describe('Required. The OpenAPI document, JSON or YAML.'),
    name: z.string().optional(),
    description: z.string().optional(),
    apiAuthentication: apiAuthenticationSchema.optional(),
    tlsConfig: tlsConfigSchema.optional(),
    serviceDirectoryConfig: serviceDirectoryConfigSchema,
    ignoreUnknownFields: z.boolean().optional(),
    url: z.string().optional(),
  }),
  async validate(context, member, prefix) {
    const toolset = await checkOpenApiSource(context, member, prefix);
    asOpenApiError(`${prefix}.openApiSchema`, () => operationOfTool(toolset, member));
    return member;
  },
  // Named by its `name` even before the document is read; 'openapi_tool' when it has none.
  displayName: (member) => (typeof member.name === 'string' ? member.name : 'openapi_tool'),
  async definitions({ record, member }, runtime) {
    const operation = operationOfTool(await runtime.openApi.compile(record, member), member);
    return [
      {
        name: text(member.name) ?? operation.name,
        description: text(member.description) ?? operation.description,
        parameters: operation.parameters,
        server: { collection: 'tools', resourceId: record.id, toolName: operation.name },
      },
    ];
  },
  run: runOpenApiCall,
};
