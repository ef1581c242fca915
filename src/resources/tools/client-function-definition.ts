import type { AgentDefinition, ClientToolDefinition, JsonObject, JsonSchema, JsonValue } from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import { SYSTEM_TOOLS } from '../../engine/index.ts';

/**
 * Tools an agent refers to by id (the app's Tool resources, CES-shaped bodies) turned into the
 * definitions the turn runner offers the model. Read when a turn starts, so an edited tool
 * applies from the next turn on. Only client functions (and system tools) are read here; the
 * server-executed kinds (openApiTool, jsFunction, toolsets) come from the ToolProvider.
 */
export async function loadReferencedTools(
  store: Pick<Repositories, 'resources'>,
  appId: string,
  agent: AgentDefinition,
): Promise<ClientToolDefinition[]> {
  const ids = agent.toolIds ?? [];
  if (ids.length === 0) return [];
  const records = new Map((await store.resources.getMany(appId, 'tools', ids)).map((record) => [record.id, record]));
  return ids.flatMap((id) => {
    const record = records.get(id);
    const definition = record ? clientFunctionDefinition(record.body, record.id) : SYSTEM_TOOLS[id];
    return definition ? [definition] : [];
  });
}

/** The definition of a Tool body whose kind is `clientFunction`, else undefined. */
export function clientFunctionDefinition(body: JsonObject, resourceId?: string): ClientToolDefinition | undefined {
  const fn = body.clientFunction;
  if (!isObject(fn) || typeof fn.name !== 'string') return undefined;
  const definition: ClientToolDefinition = {
    name: fn.name,
    description: typeof fn.description === 'string' ? fn.description : '',
    parameters: isObject(fn.parameters) ? toJsonSchema(fn.parameters) : { type: 'object', properties: {} },
  };
  if (isObject(fn.response)) definition.responseSchema = toJsonSchema(fn.response);
  const timeout = typeof body.timeout === 'string' ? parseDurationSeconds(body.timeout) : undefined;
  if (timeout !== undefined) definition.timeoutSeconds = timeout;
  if (body.executionType === 'ASYNCHRONOUS') definition.asynchronous = true;
  if (resourceId !== undefined && isObject(body.toolFakeConfig) && body.toolFakeConfig.enableFakeMode === true)
    definition.fake = { collection: 'tools', resourceId };
  return definition;
}

const SCHEMA_TYPES = new Set(['STRING', 'INTEGER', 'NUMBER', 'BOOLEAN', 'OBJECT', 'ARRAY']);

/**
 * CES `Schema` (OpenAPI-flavoured: upper-case types, `nullable`, `ref` + `defs`) to JSON Schema.
 * Plain JSON Schema passes through unchanged, so both spellings work in `parameters`.
 */
export function toJsonSchema(schema: JsonObject): JsonSchema {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && typeof value === 'string') {
      if (value === 'TYPE_UNSPECIFIED') continue;
      out.type = SCHEMA_TYPES.has(value) ? value.toLowerCase() : value;
    } else if (key === 'properties' || key === 'defs' || key === '$defs') {
      out[key === 'defs' ? '$defs' : key] = isObject(value)
        ? mapValues(value, (child) => (isObject(child) ? toJsonSchema(child) : child))
        : value;
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = isObject(value) ? toJsonSchema(value) : value;
    } else if (key === 'anyOf' || key === 'prefixItems') {
      out[key] = Array.isArray(value) ? value.map((child) => (isObject(child) ? toJsonSchema(child) : child)) : value;
    } else if (key === 'ref' && typeof value === 'string') {
      out.$ref = value.replace(/^#\/defs\//, '#/$defs/');
    } else if (key !== 'nullable') {
      out[key] = value;
    }
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** A protobuf Duration in JSON (`"30s"`, `"1.5s"`) in seconds; undefined when malformed. */
export function parseDurationSeconds(text: string): number | undefined {
  const match = /^(\d+(?:\.\d{1,9})?)s$/.exec(text);
  return match ? Number(match[1]) : undefined;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapValues(object: JsonObject, map: (value: JsonValue) => JsonValue): JsonObject {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
}
