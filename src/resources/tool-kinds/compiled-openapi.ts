import { parseDurationSeconds, toJsonSchema } from '../tools/client-function-definition.ts';
import type { AppResourceRecord, ClientToolDefinition, JsonObject } from '../../domain/records.ts';
import type { OpenApiToolset } from '../../tools/openapi/openapi-toolset.ts';
import { isObject } from '../tools/call-environment.ts';
import { compileOpenApi, openApiDefinitions, operationOfTool } from './openapi-source.ts';

/** Compiled OpenAPI documents kept (parsing a large spec on every turn would dominate it). */
const MAX_COMPILED = 200;

/** Settings a Tool or Toolset body gives each of its tools: timeout and approval. */
export function commonSettings(record: AppResourceRecord): Partial<ClientToolDefinition> {
  const settings: Partial<ClientToolDefinition> = {};
  const timeout = typeof record.body.timeout === 'string' ? parseDurationSeconds(record.body.timeout) : undefined;
  if (timeout !== undefined && timeout > 0) settings.timeoutSeconds = timeout;
  if (record.body.requireApproval === true) settings.requireApproval = true;
  return settings;
}

/**
 * Tool definitions of Tool resources and OpenAPI toolsets, with their parsed documents cached per
 * resource revision: an update gets a new revision, so nothing stale is ever used.
 */
export class CompiledSources {
  private readonly documents = new Map<string, Promise<OpenApiToolset>>();

  /** The OpenAPI toolset of an `openApiTool` Tool or an `openApiToolset` Toolset. */
  openApi(record: AppResourceRecord): Promise<OpenApiToolset> {
    const key = `${record.appId}/${record.collection}/${record.id}/${record.revision}`;
    let compiled = this.documents.get(key);
    if (!compiled) {
      const source = isObject(record.body.openApiTool)
        ? record.body.openApiTool
        : isObject(record.body.openApiToolset)
          ? record.body.openApiToolset
          : {};
      compiled = compileOpenApi(source);
      if (this.documents.size >= MAX_COMPILED) this.documents.delete(this.documents.keys().next().value ?? '');
      this.documents.set(key, compiled);
      compiled.catch(() => this.documents.delete(key));
    }
    return compiled;
  }

  /** The server tool a Tool resource defines (none for a client function, which the engine handles). */
  async toolDefinitions(record: AppResourceRecord): Promise<ClientToolDefinition[]> {
    const source = { collection: 'tools' as const, resourceId: record.id };
    const common = commonSettings(record);
    const openApiTool = record.body.openApiTool;
    if (isObject(openApiTool)) {
      const operation = operationOfTool(await this.openApi(record), openApiTool);
      const name = typeof openApiTool.name === 'string' && openApiTool.name !== '' ? openApiTool.name : operation.name;
      const description =
        typeof openApiTool.description === 'string' && openApiTool.description !== ''
          ? openApiTool.description
          : operation.description;
      return [
        {
          ...common,
          name,
          description,
          parameters: operation.parameters,
          server: { ...source, toolName: operation.name },
        },
      ];
    }
    const jsFunction = record.body.jsFunction;
    if (isObject(jsFunction) && typeof jsFunction.name === 'string') {
      const parameters: JsonObject = isObject(jsFunction.parameters)
        ? toJsonSchema(jsFunction.parameters)
        : { type: 'object', properties: {} };
      return [
        {
          ...common,
          name: jsFunction.name,
          description: typeof jsFunction.description === 'string' ? jsFunction.description : '',
          parameters,
          server: source,
        },
      ];
    }
    return [];
  }

  /** The tools of an OpenAPI toolset, one per operation. */
  async toolsetDefinitions(record: AppResourceRecord): Promise<ClientToolDefinition[]> {
    if (!isObject(record.body.openApiToolset)) return [];
    return openApiDefinitions(
      await this.openApi(record),
      { collection: 'toolsets', resourceId: record.id },
      commonSettings(record),
    );
  }
}
