import type { JsonObject, JsonSchema, JsonValue } from '../../domain/records.ts';
import { isJsonObject } from '../json-objects.ts';

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
      out[key === 'defs' ? '$defs' : key] = isJsonObject(value)
        ? mapValues(value, (child) => (isJsonObject(child) ? toJsonSchema(child) : child))
        : value;
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = isJsonObject(value) ? toJsonSchema(value) : value;
    } else if (key === 'anyOf' || key === 'prefixItems') {
      out[key] = Array.isArray(value)
        ? value.map((child) => (isJsonObject(child) ? toJsonSchema(child) : child))
        : value;
    } else if (key === 'ref' && typeof value === 'string') {
      out.$ref = value.replace(/^#\/defs\//, '#/$defs/');
    } else if (key !== 'nullable') {
      out[key] = value;
    }
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function mapValues(object: JsonObject, map: (value: JsonValue) => JsonValue): JsonObject {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
}
