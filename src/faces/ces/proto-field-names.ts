import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';

/**
 * Field names in CES requests. Proto3's JSON mapping lets a client spell every field by its JSON
 * name (lowerCamelCase, `displayName`) or by its original proto name (snake_case, `display_name`);
 * Google's parsers accept both, and CES's own docs, exports and the `gcloud`/Python tooling write
 * snake_case. Baton's schemas, storage and answers use JSON names only, so each request is
 * converted here, once, before it is validated: REST bodies and query parameters, runSession
 * bodies and the management MCP tools' arguments.
 *
 * The conversion follows the request's schema: it renames the fields of messages the schema
 * describes and recurses into them, and leaves alone what the schema declares free-form (maps and
 * Structs: tool `parameters`, `args`, `variables`, `customHeaders`, `metadata`, payloads) and
 * every string (OpenAPI documents). A message given the same field in both spellings is
 * INVALID_ARGUMENT naming both. Errors raised later are worded back in the client's spelling
 * (`inClientSpelling`), so a field violation names the field as it was written.
 */

/** What the schema says a value is: a message with known fields, a list of something, or free-form data. */
type Shape = { kind: 'message'; fields: Map<string, Shape> } | { kind: 'list'; items: Shape } | { kind: 'opaque' };

const OPAQUE: Shape = { kind: 'opaque' };

type SchemaNode = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** protobuf's ToJsonName: drop each '_' and upper-case the letter after it (`ca_certs` → `caCerts`). */
export function jsonNameOf(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** Follows a local `$ref` (`#`, `#/$defs/x`); anything else is taken as free-form. */
function resolve(node: unknown, root: SchemaNode): SchemaNode | undefined {
  if (!isRecord(node)) return undefined;
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const definitions = match ? root[match[1]!] : undefined;
  return match && isRecord(definitions) ? resolve(definitions[match[2]!], root) : undefined;
}

function compile(node: unknown, root: SchemaNode, seen: Map<SchemaNode, Shape>): Shape {
  const schema = resolve(node, root);
  if (!schema) return OPAQUE;
  const known = seen.get(schema);
  if (known) return known;
  // A nullable or union member contributes the fields of each of its branches.
  const branches = [schema];
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const list = schema[keyword];
    if (Array.isArray(list))
      for (const branch of list) {
        const resolved = resolve(branch, root);
        if (resolved) branches.push(resolved);
      }
  }
  const properties = branches.map((branch) => branch.properties).filter(isRecord);
  if (properties.length > 0) {
    const message: Shape = { kind: 'message', fields: new Map() };
    seen.set(schema, message); // before the fields, so a recursive schema ends here
    for (const group of properties)
      for (const [name, child] of Object.entries(group))
        if (!message.fields.has(name)) message.fields.set(name, compile(child, root, seen));
    return message;
  }
  const items = branches.map((branch) => branch.items).find(isRecord);
  return items ? { kind: 'list', items: compile(items, root, seen) } : OPAQUE;
}

const compiledSchemas = new WeakMap<object, Shape>();
const zodJsonSchemas = new WeakMap<z.ZodType, SchemaNode>();

/** The shape of a request schema: a zod schema (REST) or a JSON Schema (an MCP tool's inputSchema). */
function shapeOf(schema: z.ZodType | SchemaNode): Shape {
  let json: SchemaNode;
  if (schema instanceof z.ZodType) {
    json =
      zodJsonSchemas.get(schema) ?? (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as SchemaNode);
    zodJsonSchemas.set(schema, json);
  } else {
    json = schema;
  }
  let shape = compiledSchemas.get(json);
  if (!shape) {
    shape = compile(json, json, new Map());
    compiledSchemas.set(json, shape);
  }
  return shape;
}

/** The JSON name `key` stands for in `message`: itself when known, else its JSON name when that is known. */
function fieldNameIn(message: Map<string, Shape>, key: string): string {
  if (message.has(key) || !key.includes('_')) return key;
  const jsonName = jsonNameOf(key);
  return message.has(jsonName) ? jsonName : key;
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

class Conversion {
  /** Request path in JSON names → the same path as the client wrote it, for every renamed field. */
  readonly written = new Map<string, string>();

  convert(shape: Shape, value: unknown, jsonPath: string, writtenPath: string): unknown {
    if (shape.kind === 'list' && Array.isArray(value))
      return value.map((item, index) =>
        this.convert(shape.items, item, `${jsonPath}[${index}]`, `${writtenPath}[${index}]`),
      );
    if (shape.kind !== 'message' || !isRecord(value)) return value;
    const result: Record<string, unknown> = {};
    const spelledAs = new Map<string, string>();
    for (const [key, item] of Object.entries(value)) {
      const name = fieldNameIn(shape.fields, key);
      const earlier = spelledAs.get(name);
      if (earlier !== undefined) {
        const [first, second] = [child(writtenPath, earlier), child(writtenPath, key)];
        throw new BatonError(
          'duplicate_field',
          `'${first}' and '${second}' are the same field (${name}), once by its JSON name and once by its ` +
            `proto name; send it once.`,
          { param: second, details: { fields: [first, second] } },
        );
      }
      spelledAs.set(name, key);
      const fieldShape = shape.fields.get(name);
      const jsonChild = child(jsonPath, name);
      const writtenChild = child(writtenPath, key);
      if (name !== key) this.written.set(jsonChild, writtenChild);
      // defineProperty: a key such as `__proto__` stays an ordinary field of the copy.
      Object.defineProperty(result, name, {
        value: fieldShape ? this.convert(fieldShape, item, jsonChild, writtenChild) : item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return result;
  }
}

/** A field mask's paths (`display_name,mcp_toolset.server_address`) in JSON names, following `resource`'s fields. */
function maskInJsonNames(resource: Shape | undefined, mask: string): string {
  return mask
    .split(',')
    .map((entry) => {
      let shape = resource;
      return entry
        .trim()
        .split('.')
        .map((segment) => {
          // Below a map or free-form field the segments are keys the client chose: kept as written.
          if (shape?.kind !== 'message') {
            shape = undefined;
            return segment;
          }
          const name = fieldNameIn(shape.fields, segment);
          shape = shape.fields.get(name);
          return name;
        })
        .join('.');
    })
    .join(',');
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A request message in JSON names, and how to word an error about it back in the client's spelling. */
export interface AcceptedMessage {
  message: unknown;
  inClientSpelling(error: BatonError): BatonError;
  inClientSpelling(error: unknown): unknown;
}

export interface FieldNameOptions {
  /**
   * Update masks: the request field holding a FieldMask → the request field whose resource its
   * paths name (`{updateMask: 'toolset'}`), so `update_mask=display_name` works too.
   */
  fieldMasks?: Readonly<Record<string, string>>;
}

/**
 * `message` with every field of the schema's messages in its JSON name (see the file comment).
 * Throws INVALID_ARGUMENT (`duplicate_field`) when a message gives a field in both spellings.
 */
export function acceptProtoFieldNames(
  schema: z.ZodType | SchemaNode,
  message: unknown,
  options: FieldNameOptions = {},
): AcceptedMessage {
  const shape = shapeOf(schema);
  const conversion = new Conversion();
  const converted = conversion.convert(shape, message, '', '');
  if (isRecord(converted) && shape.kind === 'message') {
    for (const [maskField, resourceField] of Object.entries(options.fieldMasks ?? {})) {
      const mask = converted[maskField];
      if (typeof mask === 'string') converted[maskField] = maskInJsonNames(shape.fields.get(resourceField), mask);
    }
  }
  const written = conversion.written;
  // Longest first, so `a.bC.dE` is rewritten whole before its parent `a.bC` would match.
  const renames = [...written.entries()].sort(([left], [right]) => right.length - left.length);
  const inWrittenSpelling = (path: string): string => {
    for (const [jsonPath, writtenPath] of renames) {
      if (path === jsonPath || path.startsWith(`${jsonPath}.`) || path.startsWith(`${jsonPath}[`))
        return writtenPath + path.slice(jsonPath.length);
    }
    return path;
  };
  const patterns = renames.map(
    ([jsonPath, writtenPath]) =>
      [new RegExp(`(?<![\\w.\\]])${escapeRegExp(jsonPath)}(?!\\w)`, 'g'), writtenPath] as const,
  );
  function inClientSpelling(error: BatonError): BatonError;
  function inClientSpelling(error: unknown): unknown;
  function inClientSpelling(error: unknown): unknown {
    if (!(error instanceof BatonError) || renames.length === 0) return error;
    const param = error.param === null ? null : inWrittenSpelling(error.param);
    let text = error.message;
    for (const [pattern, writtenPath] of patterns) text = text.replace(pattern, writtenPath);
    if (param === error.param && text === error.message) return error;
    return new BatonError(error.code, text, {
      param,
      details: error.details,
      data: error.data,
      ...(error.retryAfterSeconds === null ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
      cause: error.cause ?? error,
    });
  }
  return { message: converted, inClientSpelling };
}
