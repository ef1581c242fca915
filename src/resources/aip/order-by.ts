import { BatonError } from '../../domain/errors/baton-error.ts';

/** AIP-132 `orderBy`: a comma-separated list of fields, each optionally followed by `asc` or `desc`. */
export interface OrderField {
  field: string;
  descending: boolean;
}

export interface OrderBy {
  fields: OrderField[];
}

function fail(text: string, problem: string, allowed: readonly string[]): never {
  const other = allowed.find((field) => field !== 'name');
  const example = other ? `${other} desc, name` : 'name desc';
  throw new BatonError(
    'invalid_order_by',
    `Invalid orderBy '${text}': ${problem}. Sort by one or more of: ${allowed.join(', ')}, e.g. '${example}'.`,
    {
      param: 'orderBy',
      details: { orderBy: text, allowed: [...allowed] },
    },
  );
}

// JSON clients often send camelCase (`createTime`); AIP names the snake_case field, so map it.
function toSnakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * Parses `orderBy` against the fields a list endpoint can sort by (snake_case, e.g.
 * `['name', 'create_time']`). Empty or missing means `name` ascending.
 */
export function parseOrderBy(text: string | undefined, allowed: readonly string[]): OrderBy {
  if (text === undefined || text.trim() === '') return { fields: [{ field: 'name', descending: false }] };
  const fields: OrderField[] = [];
  for (const entry of text.split(',')) {
    const [name, direction, extra] = entry
      .trim()
      .split(/\s+/)
      .filter((word) => word !== '');
    if (name === undefined) fail(text, 'it has an empty entry; separate field names with single commas', allowed);
    const field = allowed.includes(name) ? name : toSnakeCase(name);
    if (!allowed.includes(field)) fail(text, `'${name}' is not a field you can sort by`, allowed);
    if (direction !== undefined && !/^(asc|desc)$/i.test(direction)) {
      fail(text, `'${direction}' after '${name}' must be 'asc' or 'desc'`, allowed);
    }
    if (extra !== undefined)
      fail(text, `unexpected '${extra}' after '${name} ${direction}'; separate fields with commas`, allowed);
    if (fields.some((existing) => existing.field === field)) fail(text, `'${name}' appears more than once`, allowed);
    fields.push({ field, descending: direction?.toLowerCase() === 'desc' });
  }
  return { fields };
}

/**
 * The values a resource sorts by, one per order field, plus `name` when the order lacks it: the
 * name is unique, so ties are broken deterministically and paging has an exact position.
 */
export function sortKeyFor<T>(order: OrderBy, read: (resource: T, field: string) => string): (resource: T) => string[] {
  const fields = order.fields.map((entry) => entry.field);
  if (!fields.includes('name')) fields.push('name');
  return (resource) => fields.map((field) => read(resource, field));
}

/**
 * Compares two sort keys from `sortKeyFor`. Values compare as plain strings (UTF-16 code units,
 * not locale), so `read` must return text that sorts correctly, e.g. zero-padded numbers and
 * UTC timestamps. Positions past the order's fields (the name tie-break) are ascending.
 */
export function compareSortKeys(order: OrderBy, a: readonly string[], b: readonly string[]): number {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a[index] ?? '';
    const right = b[index] ?? '';
    if (left === right) continue;
    const result = left < right ? -1 : 1;
    return order.fields[index]?.descending ? -result : result;
  }
  return 0;
}

/** A sort comparator for `order`; ties are broken by name ascending. */
export function compareBy<T>(order: OrderBy, read: (resource: T, field: string) => string): (a: T, b: T) => number {
  const key = sortKeyFor(order, read);
  return (a, b) => compareSortKeys(order, key(a), key(b));
}
