import type { FilterExpression, FilterOperator, FilterValue } from './filter-expression.ts';

/**
 * Evaluates a parsed AIP-160 filter against a JSON resource. Rules a caller may meet:
 * - an absent (or null) field matches only `!=` (and `NOT field:*`);
 * - repeated and message fields support only `:`; other comparisons on them are false;
 * - a number literal compares numerically with numbers and numeric strings (int64 is a string
 *   in proto JSON); everything else compares as strings, so RFC 3339 timestamps order as text.
 */
export function matchesFilter(expression: FilterExpression, resource: unknown): boolean {
  switch (expression.type) {
    case 'all':
      return true;
    case 'and':
      return expression.operands.every((operand) => matchesFilter(operand, resource));
    case 'or':
      return expression.operands.some((operand) => matchesFilter(operand, resource));
    case 'not':
      return !matchesFilter(expression.operand, resource);
    case 'compare':
      return compare(readPath(resource, expression.field.split('.')), expression.operator, expression.value);
  }
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a dotted path; crossing a repeated field collects the values from every element. */
function readPath(value: unknown, segments: readonly string[]): unknown {
  let current = value;
  for (const [index, segment] of segments.entries()) {
    if (Array.isArray(current)) {
      const rest = segments.slice(index);
      return current.flatMap((element) => readPath(element, rest) ?? []);
    }
    // Own properties only, so `constructor` or `__proto__` never reach the prototype.
    if (!isRecord(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function toNumber(text: string): number {
  return NUMBER.test(text.trim()) ? Number(text) : Number.NaN;
}

function sign(difference: number): number {
  return difference < 0 ? -1 : difference > 0 ? 1 : 0;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders a scalar against a literal; null when they cannot be ordered. */
function ordering(actual: unknown, value: FilterValue): number | null {
  if (typeof actual === 'number') {
    const literal = value.kind === 'number' ? value.value : value.kind === 'string' ? toNumber(value.text) : Number.NaN;
    return Number.isNaN(literal) || Number.isNaN(actual) ? null : sign(actual - literal);
  }
  if (typeof actual === 'string') {
    if (value.kind === 'number') {
      const number = toNumber(actual);
      if (!Number.isNaN(number)) return sign(number - value.value);
    }
    return compareText(actual, value.text);
  }
  if (typeof actual === 'boolean') return compareText(String(actual), value.text);
  return null;
}

function wildcardPattern(pieces: readonly string[], anchored: boolean, flags: string): RegExp {
  const body = pieces.map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(anchored ? `^${body}$` : body, `s${flags}`);
}

function equals(actual: unknown, value: FilterValue): boolean {
  if (typeof actual === 'string' && value.kind === 'string' && value.wildcard !== null) {
    return wildcardPattern(value.wildcard, true, '').test(actual);
  }
  return ordering(actual, value) === 0;
}

function isPresent(actual: unknown): boolean {
  if (actual === undefined || actual === null || actual === '') return false;
  if (Array.isArray(actual)) return actual.length > 0;
  if (isRecord(actual)) return Object.keys(actual).length > 0;
  return true;
}

/** AIP-160 `:` (has): presence for `*`, membership for lists, keys for maps, substring for text. */
function has(actual: unknown, value: FilterValue): boolean {
  if (value.kind === 'string' && value.wildcard !== null && value.text === '*') return isPresent(actual);
  if (actual === undefined || actual === null) return false;
  if (Array.isArray(actual)) return actual.some((element) => typeof element !== 'object' && equals(element, value));
  if (isRecord(actual)) return Object.hasOwn(actual, value.text);
  if (typeof actual === 'string') {
    const pieces = value.kind === 'string' && value.wildcard !== null ? value.wildcard : [value.text];
    return wildcardPattern(pieces, false, 'i').test(actual);
  }
  return equals(actual, value);
}

function compare(actual: unknown, operator: FilterOperator, value: FilterValue): boolean {
  if (operator === ':') return has(actual, value);
  if (actual === undefined || actual === null) return operator === '!=';
  if (typeof actual === 'object') return false;
  if (operator === '=') return equals(actual, value);
  if (operator === '!=') return !equals(actual, value);
  const order = ordering(actual, value);
  if (order === null) return false;
  if (operator === '<') return order < 0;
  if (operator === '<=') return order <= 0;
  if (operator === '>') return order > 0;
  return order >= 0;
}
