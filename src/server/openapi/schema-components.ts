import { z } from 'zod';

export type JsonSchemaObject = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';
// zod's bounds of a safe integer, written on every `.int()`: they say nothing a reader needs.
const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * Turns the faces' zod schemas into the JSON Schemas of an OpenAPI 3.1 document. Schemas named
 * with `.meta({ id })` become `components.schemas` entries that every use refers to; recursive
 * ones without a name are named after the place they were met. Every schema is read as input
 * (`io: "input"`): a request as a client writes it, a response as a client may read it (fields
 * not marked strict may grow).
 */
export class SchemaComponents {
  private readonly components = new Map<string, { schema: JsonSchemaObject; text: string }>();

  /** The JSON Schema of `schema`, with named parts moved to the components. `place` names unnamed recursive parts. */
  toJsonSchema(schema: z.ZodType, place: string): JsonSchemaObject {
    const converted = z.toJSONSchema(schema, {
      io: 'input',
      target: 'draft-2020-12',
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
    }) as JsonSchemaObject;
    const { $schema: _dialect, $defs, ...root } = converted;
    const definitions = ($defs ?? {}) as Record<string, JsonSchemaObject>;
    const names = new Map<string, string>();
    for (const name of Object.keys(definitions))
      names.set(name, name.startsWith('__schema') ? `${place}${name.slice('__schema'.length)}` : name);
    const rewrite = (value: unknown): unknown => rewriteRefs(value, names);
    for (const [name, definition] of Object.entries(definitions))
      this.add(names.get(name) ?? name, rewrite(definition) as JsonSchemaObject);
    return rewrite(root) as JsonSchemaObject;
  }

  /** Adds a named schema; the same name twice must mean the same schema. */
  add(name: string, schema: JsonSchemaObject): void {
    const text = JSON.stringify(schema);
    const known = this.components.get(name);
    if (known && known.text !== text)
      throw new Error(`Two different schemas are named '${name}' in the API document; give one another id.`);
    this.components.set(name, { schema, text });
  }

  ref(name: string): JsonSchemaObject {
    return { $ref: `${REF_PREFIX}${name}` };
  }

  /** The named schemas, in name order, for `components.schemas`. */
  all(): Record<string, JsonSchemaObject> {
    const sorted = [...this.components.keys()].sort();
    return Object.fromEntries(sorted.map((name) => [name, this.components.get(name)?.schema ?? {}]));
  }
}

function rewriteRefs(value: unknown, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, names));
  if (typeof value !== 'object' || value === null) return value;
  const result: JsonSchemaObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string' && child.startsWith('#/$defs/')) {
      const name = child.slice('#/$defs/'.length);
      result[key] = `${REF_PREFIX}${names.get(name) ?? name}`;
    } else if (
      (key === 'minimum' || key === 'maximum') &&
      typeof child === 'number' &&
      SAFE_INTEGER_BOUNDS.has(child)
    ) {
      continue;
    } else {
      result[key] = rewriteRefs(child, names);
    }
  }
  return result;
}
