import type { JsonSchema, JsonValue } from './api-types.ts';

/**
 * The generated form's model: what kind of input each schema node gets, the editable draft it
 * starts from, and the JSON value the draft turns into. Kept apart from the rendering so the
 * conversion rules (empty means absent, numbers parsed, required checked) live in one place.
 */
export type FieldKind = 'string' | 'enum' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'json';

/** Number inputs keep their text so "1." or "-" can be typed; parsing happens on submit. */
export type Draft = string | boolean | Draft[] | { [key: string]: Draft };

/** Google's schemas (CES) spell types in capitals and may list several; the form needs one. */
export function typeOf(schema: JsonSchema): string | undefined {
  const raw = Array.isArray(schema.type) ? schema.type.find((entry) => entry.toLowerCase() !== 'null') : schema.type;
  if (raw !== undefined) return raw.toLowerCase();
  if (schema.properties) return 'object';
  if (schema.enum) return 'string';
  return undefined;
}

export function kindOf(schema: JsonSchema): FieldKind {
  const type = typeOf(schema);
  if (schema.enum && schema.enum.length > 0 && (type === 'string' || type === undefined)) return 'enum';
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type;
  if (type === 'object' && schema.properties) return 'object';
  // Only arrays of scalars get a repeatable input; arrays of objects are edited as JSON.
  if (type === 'array' && schema.items && isScalar(kindOf(schema.items))) return 'array';
  return 'json';
}

export function isScalar(kind: FieldKind): boolean {
  return kind === 'string' || kind === 'enum' || kind === 'number' || kind === 'integer' || kind === 'boolean';
}

export function initialDraft(schema: JsonSchema): Draft {
  const kind = kindOf(schema);
  const fallback = schema.default;
  switch (kind) {
    case 'boolean':
      return fallback === true;
    case 'object': {
      const draft: Record<string, Draft> = {};
      for (const [name, child] of Object.entries(schema.properties ?? {})) draft[name] = initialDraft(child);
      return draft;
    }
    case 'array':
      return Array.isArray(fallback) ? fallback.map((item) => (typeof item === 'boolean' ? item : String(item))) : [];
    case 'json':
      return fallback === undefined ? '' : JSON.stringify(fallback, null, 2);
    default:
      return fallback === undefined || fallback === null ? '' : String(fallback);
  }
}

/** Where a field sits, for ids and for messages ("refund.amount is required"). */
export type FieldPath = readonly string[];

export function labelOf(path: FieldPath): string {
  return path.length === 0 ? 'The result' : path.join('.');
}

/**
 * Turns a draft into the JSON value to send. Empty optional fields are left out rather than sent
 * as "" or 0, which a tool would read as real answers. Problems are collected, not thrown, so the
 * person sees all of them at once.
 */
export function buildValue(
  schema: JsonSchema,
  draft: Draft,
  path: FieldPath,
  required: boolean,
  errors: string[],
): JsonValue | undefined {
  const kind = kindOf(schema);
  const missing = () => {
    if (required) errors.push(`${labelOf(path)} is required.`);
    return undefined;
  };
  switch (kind) {
    case 'boolean':
      // Array items of booleans are picked from a true/false select, so arrive as text.
      if (typeof draft === 'string') return draft === '' ? missing() : draft === 'true';
      return draft === true;
    case 'string':
    case 'enum':
      return typeof draft === 'string' && draft !== '' ? draft : missing();
    case 'number':
    case 'integer':
      // A malformed number is reported as such, not also as missing.
      if (typeof draft !== 'string' || draft.trim() === '') return missing();
      return scalarNumber(kind, draft, path, errors);
    case 'object': {
      const fields = typeof draft === 'object' && !Array.isArray(draft) ? draft : {};
      const requiredNames = new Set(schema.required ?? []);
      const value: Record<string, JsonValue> = {};
      for (const [name, child] of Object.entries(schema.properties ?? {})) {
        const built = buildValue(
          child,
          fields[name] ?? initialDraft(child),
          [...path, name],
          requiredNames.has(name),
          errors,
        );
        if (built !== undefined) value[name] = built;
      }
      // An optional nested object left blank is absent; the top level is always an object.
      return Object.keys(value).length > 0 || required || path.length === 0 ? value : undefined;
    }
    case 'array': {
      const items = Array.isArray(draft) ? draft : [];
      const itemSchema = schema.items ?? {};
      const values: JsonValue[] = [];
      items.forEach((item, index) => {
        const built = buildValue(itemSchema, item, [...path, String(index + 1)], false, errors);
        if (built !== undefined) values.push(built);
      });
      return values.length > 0 || required ? values : undefined;
    }
    case 'json': {
      if (typeof draft !== 'string' || draft.trim() === '') return missing();
      try {
        return JSON.parse(draft) as JsonValue;
      } catch (error) {
        errors.push(`${labelOf(path)} is not valid JSON: ${(error as Error).message}`);
        return undefined;
      }
    }
  }
}

function scalarNumber(kind: 'number' | 'integer', draft: Draft, path: FieldPath, errors: string[]): number | undefined {
  if (typeof draft !== 'string' || draft.trim() === '') return undefined;
  const value = Number(draft);
  if (!Number.isFinite(value)) {
    errors.push(`${labelOf(path)} must be a number.`);
    return undefined;
  }
  if (kind === 'integer' && !Number.isInteger(value)) {
    errors.push(`${labelOf(path)} must be a whole number.`);
    return undefined;
  }
  return value;
}

/** Replaces the draft at `path`, copying only the nodes on the way (drafts are state: never mutated). */
export function setAt(draft: Draft, path: FieldPath, value: Draft): Draft {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (Array.isArray(draft)) {
    const copy = [...draft];
    copy[Number(head)] = setAt(copy[Number(head)] ?? '', rest, value);
    return copy;
  }
  const record = typeof draft === 'object' ? draft : {};
  return { ...record, [head]: setAt(record[head] ?? '', rest, value) };
}
