import { buildArguments } from './auto-arguments.ts';
import type { JsonSchema, JsonSchemaDefinition } from './json-schema.ts';
import { matchesStringConstraints, schemaType, withinBounds } from './json-schema-reading.ts';
import type { ScriptedTurn } from './scripted-turn.ts';
import { splitIdentifier } from './text-analysis.ts';

/**
 * The scripted model's answer under a JSON response format (Responses `text.format`, an AI SDK
 * `responseFormat`): JSON built from the schema, as a cooperative model would write it, so that
 * clients that parse the answer (`responses.parse` with a zod schema) work offline.
 *
 * Values come, most trusted first, from the fields of JSON the turn already holds (the answer
 * the program decided, when it is JSON, and the results of the tools just called), matched by
 * property name and type; then from the text (the user's message and the decided answer) as
 * `scripted:auto` fills tool arguments; then from the schema's defaults, enums, examples and
 * typed placeholders. Only properties the schema declares are written, required ones always.
 */
export function answerInFormat(turn: ScriptedTurn, decided: string): string {
  const format = turn.responseFormat;
  if (format?.type !== 'json') return decided;
  const parsed = parseJson(decided);
  const schema = asSchema(format.schema);
  if (schema === undefined) {
    // `json_object`: any JSON object will do; the decided answer, wrapped when it is not one.
    return JSON.stringify(isRecord(parsed) ? parsed : { answer: decided });
  }
  const known = knownFields([parsed, ...turn.toolResults.map((result) => result.value)]);
  // The user's message first: like a tool's arguments, the answer's values are mostly what was asked about.
  // Words naming the format and the tools are never taken for names ("Weather in Paris?").
  const vocabulary = new Set(
    [
      format.name ?? '',
      ...turn.tools.map((tool) => tool.name),
      ...turn.toolResults.map((result) => result.toolName),
    ].flatMap(splitIdentifier),
  );
  const source = { text: [turn.lastUserText ?? '', decided].join('\n'), vocabulary };
  const type = schemaType(schema);
  if (type !== undefined && type !== 'object') {
    // A non-object root (OpenAI requires an object, other providers do not): built as a property.
    const wrapped = buildArguments({ type: 'object', properties: { value: schema }, required: ['value'] }, source);
    return JSON.stringify(type === 'string' && fits(decided, schema) ? decided : (wrapped['value'] ?? null));
  }
  const value = buildArguments(schema, source);
  for (const [name, definition] of Object.entries(schema.properties ?? {})) {
    const property = simpleSchema(definition);
    const candidate = known.get(normalise(name));
    if (property !== undefined && candidate !== undefined && fits(candidate, property)) value[name] = candidate;
  }
  return JSON.stringify(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function asSchema(schema: unknown): JsonSchema | undefined {
  return isRecord(schema) ? (schema as JsonSchema) : undefined;
}

/** `unit_price`, `unitPrice` and `Unit Price` name one field. */
function normalise(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Scalar fields of JSON objects (top level and one level down), by normalised name; the first source wins. */
function knownFields(sources: readonly unknown[]): Map<string, unknown> {
  const known = new Map<string, unknown>();
  const add = (record: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(record)) {
      const name = normalise(key);
      if (!known.has(name) && (value === null || typeof value !== 'object')) known.set(name, value);
    }
  };
  for (const source of sources) if (isRecord(source)) add(source);
  for (const source of sources)
    if (isRecord(source)) for (const nested of Object.values(source)) if (isRecord(nested)) add(nested);
  return known;
}

/** A property schema simple enough to check a value against here: one type, or one type or null. */
function simpleSchema(definition: JsonSchemaDefinition): JsonSchema | undefined {
  if (typeof definition === 'boolean' || definition.$ref !== undefined || definition.allOf !== undefined)
    return undefined;
  const union = definition.anyOf ?? definition.oneOf;
  if (union === undefined) return definition;
  const branches = union.filter((branch) => typeof branch === 'boolean' || branch.type !== 'null');
  const only = branches.length === 1 ? branches[0] : undefined;
  return only === undefined ? undefined : simpleSchema(only);
}

/** Whether `value` is valid for a simple (scalar) schema; objects and arrays are left to the builder. */
function fits(value: unknown, schema: JsonSchema): boolean {
  if (schema.const !== undefined) return value === schema.const;
  if (schema.enum !== undefined) return schema.enum.includes(value);
  switch (schemaType(schema)) {
    case 'string':
      return typeof value === 'string' && matchesStringConstraints(value, schema);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && withinBounds(value, schema);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && withinBounds(value, schema);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return false;
  }
}
