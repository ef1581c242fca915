import type { JsonSchema, JsonSchemaDefinition } from './json-schema.ts';

/** Reading JSON Schemas: property order, types, bounds and typed placeholders. */
/** Required properties first (in schema order), then optional ones. */
export function orderedProperties(schema: JsonSchema): Array<[string, JsonSchemaDefinition]> {
  const entries = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  return [...entries.filter(([name]) => required.has(name)), ...entries.filter(([name]) => !required.has(name))];
}

export function schemaType(schema: JsonSchema): string | undefined {
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? schema.type[0]) : schema.type;
  if (type !== undefined) return type;
  if (schema.properties !== undefined) return 'object';
  if (schema.items !== undefined) return 'array';
  const sample = schema.const ?? schema.enum?.[0];
  if (typeof sample === 'string') return 'string';
  if (typeof sample === 'number') return 'number';
  if (typeof sample === 'boolean') return 'boolean';
  return undefined;
}

export function itemsOf(schema: JsonSchema): JsonSchemaDefinition | undefined {
  return Array.isArray(schema.items) ? schema.items[0] : schema.items;
}

export function withinBounds(value: number, schema: JsonSchema): boolean {
  if (schema.minimum !== undefined && value < schema.minimum) return false;
  if (schema.maximum !== undefined && value > schema.maximum) return false;
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return false;
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return false;
  return true;
}

export function matchesStringConstraints(value: string, schema: JsonSchema): boolean {
  if (schema.minLength !== undefined && value.length < schema.minLength) return false;
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return false;
  if (schema.pattern !== undefined) {
    try {
      if (!new RegExp(schema.pattern, 'u').test(value)) return false;
    } catch {
      // An unparseable pattern cannot be honoured either way; do not reject the value for it.
    }
  }
  return true;
}

/** 0, unless the bounds exclude it; then the nearest valid whole number. */
export function numberPlaceholder(schema: JsonSchema): number {
  if (schema.minimum !== undefined && schema.minimum > 0) return Math.ceil(schema.minimum);
  if (schema.exclusiveMinimum !== undefined && schema.exclusiveMinimum >= 0)
    return Math.floor(schema.exclusiveMinimum) + 1;
  if (schema.maximum !== undefined && schema.maximum < 0) return Math.floor(schema.maximum);
  if (schema.exclusiveMaximum !== undefined && schema.exclusiveMaximum <= 0)
    return Math.ceil(schema.exclusiveMaximum) - 1;
  return 0;
}

export function stringPlaceholder(name: string, schema: JsonSchema): string {
  // Format-aware samples keep placeholders valid for validators that check formats.
  switch (schema.format) {
    case 'email':
    case 'idn-email':
      return 'user@example.com';
    case 'uri':
    case 'url':
    case 'iri':
      return 'https://example.com';
    case 'date':
      return '1970-01-01';
    case 'date-time':
      return '1970-01-01T00:00:00Z';
    case 'time':
      return '00:00:00';
    case 'uuid':
      return '00000000-0000-0000-0000-000000000000';
  }
  let value = `<${name}>`;
  if (schema.minLength !== undefined && value.length < schema.minLength) value = value.padEnd(schema.minLength, '_');
  if (schema.maxLength !== undefined && value.length > schema.maxLength) value = value.slice(0, schema.maxLength);
  return value;
}

export function resolvePointer(root: JsonSchema, ref: string): JsonSchemaDefinition | undefined {
  if (!ref.startsWith('#')) return undefined;
  let current: unknown = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((segment) => segment !== '')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current as JsonSchemaDefinition | undefined;
}
