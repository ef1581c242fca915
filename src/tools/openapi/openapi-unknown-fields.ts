/**
 * CES's `ignoreUnknownFields`: when set, fields of an API response that its schema does not
 * describe are dropped before the model sees them (less noise, and no accidental leaks of
 * undocumented internals). "Described" means listed in `properties` or matching
 * `patternProperties` of the schema or of any `allOf` / `anyOf` / `oneOf` branch; an explicit
 * `additionalProperties` (true or a schema) keeps everything, and a schema that says nothing
 * about properties at all (a free-form object) is left alone.
 */
import type { JsonObject, JsonValue } from './openapi-types.ts';

const MAX_DEPTH = 64;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema and its composition branches, flattened. */
function branches(schema: JsonObject, depth = 0): JsonObject[] {
  if (depth > 8) return [schema];
  const nested = ['allOf', 'anyOf', 'oneOf'].flatMap((key) => {
    const list = schema[key];
    return Array.isArray(list) ? list.filter(isObject).flatMap((branch) => branches(branch, depth + 1)) : [];
  });
  return [schema, ...nested];
}

function prune(value: JsonValue, schema: unknown, depth: number): JsonValue {
  if (!isObject(schema) || typeof schema.$ref === 'string' || depth > MAX_DEPTH) return value;
  const parts = branches(schema);
  if (Array.isArray(value)) {
    const items = parts.map((part) => part.items).filter(isObject);
    if (items.length === 0) return value;
    const itemSchema = items.length === 1 ? items[0] : { allOf: items };
    return value.map((item) => prune(item, itemSchema, depth + 1));
  }
  if (!isObject(value)) return value;

  const properties = new Map<string, JsonObject[]>();
  const patterns: [RegExp, JsonObject][] = [];
  const extra: JsonObject[] = [];
  let described = false;
  let open = false;
  for (const part of parts) {
    if (isObject(part.properties)) {
      described = true;
      for (const [name, child] of Object.entries(part.properties)) {
        if (isObject(child)) properties.set(name, [...(properties.get(name) ?? []), child]);
      }
    }
    if (isObject(part.patternProperties)) {
      described = true;
      for (const [pattern, child] of Object.entries(part.patternProperties)) {
        try {
          if (isObject(child)) patterns.push([new RegExp(pattern, 'u'), child]);
        } catch {
          open = true; // a pattern we cannot evaluate: keep rather than guess
        }
      }
    }
    if (part.additionalProperties === true) open = true;
    if (isObject(part.additionalProperties)) extra.push(part.additionalProperties);
  }
  if (!described && extra.length === 0) return value;

  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    const schemas = [
      ...(properties.get(key) ?? []),
      ...patterns.filter(([pattern]) => pattern.test(key)).map(([, s]) => s),
    ];
    if (schemas.length === 0 && extra.length > 0) schemas.push(...extra);
    if (schemas.length === 0) {
      if (open) out[key] = child;
      continue;
    }
    out[key] = prune(child, schemas.length === 1 ? schemas[0] : { allOf: schemas }, depth + 1);
  }
  return out;
}

/** `value` without the object fields `schema` (an OpenAPI response schema) does not describe. */
export function dropUnknownFields(value: JsonValue, schema: unknown): JsonValue {
  return prune(value, schema, 0);
}
