import type { JsonObject, JsonValue } from '../domain/records.ts';

/** Reading and copying the JSON bodies resources are kept as. */

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** A copy of `body` without the fields the server owns, which clients may send but never set. */
export function withoutFields(body: JsonObject, fields: readonly string[]): JsonObject {
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(body)) if (!fields.includes(key) && value !== undefined) copy[key] = value;
  return copy;
}

/** zod output (with `undefined` for absent optionals) as plain JSON. */
export function toJsonObject(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}
