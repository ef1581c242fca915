import { z } from 'zod';
import { configPath, type ConfigProblem } from './config-issues.ts';

/**
 * zod's problems with baton.yaml in an operator's words ("must be at most 86400", "is not a known
 * key; did you mean port?"), each at its own path. Messages a schema gives itself (the duration
 * ranges, refinements) are kept as they are.
 */

const TYPE_NAMES: Readonly<Record<string, string>> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  object: 'a mapping (key: value)',
  record: 'a mapping (key: value)',
  array: 'a list',
  null: 'null',
};

function typeName(expected: string): string {
  return TYPE_NAMES[expected] ?? expected;
}

/** A value as the operator wrote it, short. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number' && Number.isNaN(value)) return 'not a number';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** The size a bound counts: a number itself, else items, characters or entries. */
function boundUnit(origin: string): string {
  if (origin === 'array' || origin === 'set') return ' items';
  if (origin === 'string') return ' characters';
  if (origin === 'object' || origin === 'record' || origin === 'map') return ' entries';
  return '';
}

/** The error map `fileSchema.safeParse` runs with. Returns nothing where zod's own message is as good. */
export const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      // A coerced value that is not a number arrives as NaN: what was written is lost.
      if (typeof issue.input === 'number' && Number.isNaN(issue.input)) return `must be ${typeName(issue.expected)}`;
      return `must be ${typeName(issue.expected)} (got ${shown(issue.input)})`;
    case 'too_big': {
      const unit = boundUnit(issue.origin);
      if (unit === ' characters' || unit === ' items' || unit === ' entries')
        return `must have at most ${String(issue.maximum)}${unit}`;
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)} (got ${shown(issue.input)})`;
    }
    case 'too_small': {
      const unit = boundUnit(issue.origin);
      if (unit === ' characters' && Number(issue.minimum) === 1) return 'must not be empty';
      if (unit !== '') return `must have at least ${String(issue.minimum)}${unit}`;
      return `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)} (got ${shown(issue.input)})`;
    }
    case 'invalid_value':
      return `must be ${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((value) => String(value)).join(', ')} (got ${shown(issue.input)})`;
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue
        ? `must match ${String(issue.pattern)} (got ${shown(issue.input)})`
        : undefined;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return undefined;
  }
};

/** The parts of a zod schema's definition this module walks; zod keeps them on `_zod.def`. */
interface SchemaDefinition {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
}

function definitionOf(schema: z.core.$ZodType): SchemaDefinition {
  return schema._zod.def as unknown as SchemaDefinition;
}

/** The schema of the value at `path` under `schema`, through optional, nullable, default and pipe wrappers. */
function schemaAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): z.core.$ZodType | undefined {
  let current: z.core.$ZodType | undefined = schema;
  const unwrap = (candidate: z.core.$ZodType): z.core.$ZodType => {
    let inner = candidate;
    for (let definition = definitionOf(inner); ; definition = definitionOf(inner)) {
      const next = definition.innerType ?? (definition.type === 'pipe' ? definition.in : undefined);
      if (next === undefined) return inner;
      inner = next;
    }
  };
  for (const segment of path) {
    if (current === undefined) return undefined;
    const definition = definitionOf(unwrap(current));
    if (definition.type === 'object') current = definition.shape?.[String(segment)];
    else if (definition.type === 'array') current = definition.element;
    else if (definition.type === 'record') current = definition.valueType;
    else return undefined;
  }
  return current === undefined ? undefined : unwrap(current);
}

/** The keys an object at `path` takes, when the schema says. */
function knownKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const found = schemaAt(schema, path);
  if (found === undefined) return [];
  const definition = definitionOf(found);
  return definition.type === 'object' ? Object.keys(definition.shape ?? {}) : [];
}

/** Edits from `a` to `b` (insertions, deletions, substitutions): how near a typo is to a key. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  if (known.length === 0) return 'is not a known key';
  const nearest = known
    .map((candidate) => ({ candidate, distance: editDistance(key.toLowerCase(), candidate.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance)[0];
  const guess = nearest !== undefined && nearest.distance <= 2 ? `; did you mean ${nearest.candidate}?` : '';
  return `is not a known key${guess} (known here: ${known.join(', ')})`;
}

/** A union's one alternative that fits the value's type, if only one does: its problems are the ones to show. */
function fittingAlternative(
  alternatives: readonly (readonly z.core.$ZodIssue[])[],
): readonly z.core.$ZodIssue[] | null {
  const fitting = alternatives.filter(
    (issues) => !issues.some((issue) => issue.path.length === 0 && issue.code === 'invalid_type'),
  );
  return fitting.length === 1 ? (fitting[0] ?? null) : null;
}

function expectedTypes(alternatives: readonly (readonly z.core.$ZodIssue[])[]): string[] {
  const types = alternatives.flatMap((issues) =>
    issues.flatMap((issue) =>
      issue.path.length === 0 && issue.code === 'invalid_type' ? [typeName(issue.expected)] : [],
    ),
  );
  return [...new Set(types)];
}

/** The bound every zod integer carries (`Number.MAX_SAFE_INTEGER`) is noise beside the field's own range. */
function isSafeIntegerBound(issue: z.core.$ZodIssue): boolean {
  return (
    (issue.code === 'too_big' && Math.abs(Number(issue.maximum)) === Number.MAX_SAFE_INTEGER) ||
    (issue.code === 'too_small' && Math.abs(Number(issue.minimum)) === Number.MAX_SAFE_INTEGER)
  );
}

/** Every problem of a failed parse of `schema`, one per path and message, in the file's order. */
export function configProblemsFromZod(error: z.ZodError, schema: z.core.$ZodType): ConfigProblem[] {
  const flat: { path: PropertyKey[]; message: string; noise: boolean }[] = [];
  const visit = (issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]): void => {
    for (const issue of issues) {
      const path = [...prefix, ...issue.path];
      if (issue.code === 'unrecognized_keys') {
        const known = knownKeysAt(schema, path);
        for (const key of issue.keys)
          flat.push({ path: [...path, key], message: unknownKeyMessage(key, known), noise: false });
      } else if (issue.code === 'invalid_union') {
        const alternative = fittingAlternative(issue.errors);
        if (alternative) visit(alternative, path);
        else {
          const types = expectedTypes(issue.errors);
          flat.push({
            path,
            message: types.length > 0 ? `must be ${types.join(' or ')}` : issue.message,
            noise: false,
          });
        }
      } else if (issue.code === 'invalid_key') {
        const reasons = issue.issues.map((inner) => inner.message).join('; ');
        flat.push({ path, message: `is not an allowed name: ${reasons}`, noise: false });
      } else {
        flat.push({ path, message: issue.message, noise: isSafeIntegerBound(issue) });
      }
    }
  };
  visit(error.issues, []);
  const seen = new Set<string>();
  const result: ConfigProblem[] = [];
  for (const entry of flat) {
    const path = configPath(entry.path);
    // A noisy bound goes when the same value has another problem to show.
    if (entry.noise && flat.some((other) => !other.noise && configPath(other.path) === path)) continue;
    const key = `${path}\u0000${entry.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // A problem of the whole document (a list where a mapping belongs) says so, having no path.
    result.push({ at: entry.path, message: entry.path.length === 0 ? `the file ${entry.message}` : entry.message });
  }
  return result;
}
