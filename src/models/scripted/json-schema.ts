/**
 * The subset of JSON Schema (draft 7 and 2020-12 spellings) that the auto program reads.
 * `@ai-sdk/provider` types tool schemas as `JSONSchema7` from `@types/json-schema`, which is not
 * installed here, so that type degrades to `any`; this local type keeps the argument builder
 * type-checked. Everything is optional and read defensively: schemas come from users.
 */
export interface JsonSchema {
  type?: JsonSchemaTypeName | JsonSchemaTypeName[];
  properties?: Record<string, JsonSchemaDefinition>;
  required?: string[];
  items?: JsonSchemaDefinition | JsonSchemaDefinition[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown;
  example?: unknown;
  format?: string;
  description?: string;
  title?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchemaDefinition[];
  oneOf?: JsonSchemaDefinition[];
  allOf?: JsonSchemaDefinition[];
  $ref?: string;
}

export type JsonSchemaTypeName = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** `true`/`false` are valid (sub)schemas: anything / nothing. */
export type JsonSchemaDefinition = JsonSchema | boolean;
