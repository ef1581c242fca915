import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import { OpenApiError } from '../../tools/openapi/openapi-error.ts';
import { apiAuthenticationSchema, serviceDirectoryConfigSchema, tlsConfigSchema } from '../tools/common-schemas.ts';
import { runOpenApiCall } from './openapi-call.ts';
import { openApiDefinitions } from './openapi-source.ts';
import { checkOpenApiSource } from './openapi-source-rules.ts';
import type { ToolsetKind } from './tool-kind.ts';

/** One tool per operation of the document. */
const definitions: ToolsetKind['definitions'] = async ({ record, member }, runtime) =>
  openApiDefinitions(await runtime.openApi.compile(record, member), { collection: 'toolsets', resourceId: record.id });

/** `openApiToolset`: every operation of an OpenAPI document, each a tool Baton calls. */
export const openApiToolsetKind: ToolsetKind = {
  key: 'openApiToolset',
  collection: 'toolsets',
  executor: 'server',
  description: 'One of toolset_type: tools from an OpenAPI document.',
  schema: z.strictObject({
    openApiSchema: z.string().optional().describe('Required. The OpenAPI document, JSON or YAML.'),
    apiAuthentication: apiAuthenticationSchema.optional(),
    tlsConfig: tlsConfigSchema.optional(),
    serviceDirectoryConfig: serviceDirectoryConfigSchema,
    ignoreUnknownFields: z.boolean().optional(),
    url: z.string().optional().describe('Server URL; replaces the schema servers.'),
  }),
  async validate(context, member, prefix) {
    await checkOpenApiSource(context, member, prefix);
    return member;
  },
  definitions,
  run: runOpenApiCall,
  /** Its operations, shown as CES `openApiTool`s with `parameters` (a Baton extension). */
  async inspect(source, runtime, toolsetName) {
    let found;
    try {
      found = await definitions(source, runtime);
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
    const url = source.member.url;
    const tools = found.map((tool) => {
      const id = tool.server?.toolName ?? tool.name;
      const openApiTool: JsonObject = { name: id, description: tool.description };
      if (typeof url === 'string' && url !== '') openApiTool.url = url;
      openApiTool.parameters = tool.parameters;
      return { id, name: tool.name, description: tool.description, parameters: tool.parameters, wire: { openApiTool } };
    });
    return { tools, snapshot: null };
  },
};
