/**
 * OpenAPI schema objects → plain JSON Schema that ajv (draft-07 in the engine, 2020-12 here, both
 * with strict: false) compiles and that model providers accept as tool parameters.
 *
 * 3.0 schemas are a JSON Schema dialect with quirks: `nullable`, a single `example`, boolean
 * `exclusiveMinimum/Maximum`. 3.1 schemas are 2020-12 already. In both we drop what only makes
 * sense inside an OpenAPI document (`discriminator`, `xml`, `externalDocs`, `x-*`) and the
 * identifiers (`$schema`, `$id`, `$anchor`, ...) that would make ajv look for other schemas.
 * A `$ref` still present after dereferencing is a recursive one; it becomes an open schema with a
 * description, since a tool schema cannot carry the document's components.
 */
import type { JsonObject, JsonValue } from './openapi-types.ts';

export type SchemaDirection = 'request' | 'response';

/** Formats ajv-formats knows; others would make ajv warn, so they move into the description. */
const KNOWN_FORMATS = new Set([
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
]);

const DROPPED = new Set([
  'discriminator',
  'xml',
  'externalDocs',
  '$schema',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$comment',
  '$vocabulary',
  'nullable',
  'example',
]);
const SCHEMA_VALUED = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
  'contentSchema',
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/** Past this depth a schema is most likely a dereferenced DAG blowing up; the rest stays open. */
const MAX_DEPTH = 40;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function appendDescription(schema: JsonObject, note: string): void {
  schema.description =
    typeof schema.description === 'string' && schema.description !== '' ? `${schema.description} (${note})` : note;
}

function convert(node: unknown, version: '3.0' | '3.1', direction: SchemaDirection, depth: number): JsonValue {
  if (typeof node === 'boolean') return node;
  if (!isObject(node)) return {};
  if (depth > MAX_DEPTH) return { description: 'nested too deeply to describe' };
  if (typeof node.$ref === 'string')
    return { description: `recursive structure (${node.$ref.replace(/^#\/components\/schemas\//, '')})` };

  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (SCHEMA_VALUED.has(key)) out[key] = convert(value, version, direction, depth + 1);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value))
      out[key] = value.map((item) => convert(item, version, direction, depth + 1));
    else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      const map: JsonObject = {};
      for (const [name, child] of Object.entries(value)) {
        // A request cannot set what the server marks readOnly (an id it assigns, say).
        if (key === 'properties' && direction === 'request' && isObject(child) && child.readOnly === true) continue;
        map[name] = convert(child, version, direction, depth + 1);
      }
      out[key] = map;
    } else out[key] = structuredClone(value);
  }

  if (isObject(out.properties) && Array.isArray(out.required)) {
    const properties = out.properties;
    out.required = out.required.filter((name): name is string => typeof name === 'string' && name in properties);
    if (out.required.length === 0) delete out.required;
  }
  if ('example' in node && !('examples' in node)) out.examples = [structuredClone(node.example as JsonValue)];
  if (typeof out.format === 'string' && !KNOWN_FORMATS.has(out.format)) {
    appendDescription(out, `format: ${out.format}`);
    delete out.format;
  }
  if (version === '3.0') {
    // 3.0 booleans modify minimum/maximum; JSON Schema (draft-06 on) makes them numbers.
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (out[flag] === true && typeof out[bound] === 'number') {
        out[flag] = out[bound];
        delete out[bound];
      } else if (typeof out[flag] === 'boolean') delete out[flag];
    }
    if (node.nullable === true) {
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      // `nullable` beside a composition (`allOf: [$ref]`) is how 3.0 specs write "this or null".
      else if (out.type === undefined && (out.allOf ?? out.anyOf ?? out.oneOf) !== undefined)
        return { anyOf: [out, { type: 'null' }] };
    }
  }
  return out;
}

/** A JSON Schema (as an object) for an OpenAPI schema object of a document of `version`. */
export function toJsonSchema(
  schema: unknown,
  version: '3.0' | '3.1',
  direction: SchemaDirection = 'request',
): JsonObject {
  const converted = convert(schema, version, direction, 0);
  if (converted === false) return { not: {} };
  return isObject(converted) ? converted : {};
}
