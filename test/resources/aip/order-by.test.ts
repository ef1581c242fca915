import { describe, expect, it } from 'vitest';
import { compareBy, compareSortKeys, parseOrderBy, sortKeyFor } from '../../../src/resources/aip/order-by.ts';
import { caught } from './caught.ts';

const ALLOWED = ['name', 'create_time', 'display_name'] as const;

describe('parseOrderBy (AIP-132)', () => {
  it('defaults to name ascending when missing or blank', () => {
    expect(parseOrderBy(undefined, ALLOWED)).toEqual({ fields: [{ field: 'name', descending: false }] });
    expect(parseOrderBy('', ALLOWED)).toEqual({ fields: [{ field: 'name', descending: false }] });
    expect(parseOrderBy('   ', ALLOWED)).toEqual({ fields: [{ field: 'name', descending: false }] });
  });

  it('reads a field with an optional asc or desc', () => {
    expect(parseOrderBy('name', ALLOWED)).toEqual({ fields: [{ field: 'name', descending: false }] });
    expect(parseOrderBy('create_time desc', ALLOWED)).toEqual({ fields: [{ field: 'create_time', descending: true }] });
    expect(parseOrderBy('name asc', ALLOWED)).toEqual({ fields: [{ field: 'name', descending: false }] });
    expect(parseOrderBy('name DESC', ALLOWED)).toEqual({ fields: [{ field: 'name', descending: true }] });
  });

  it('reads comma-separated lists with extra whitespace', () => {
    expect(parseOrderBy('  create_time   desc ,display_name,  name asc ', ALLOWED)).toEqual({
      fields: [
        { field: 'create_time', descending: true },
        { field: 'display_name', descending: false },
        { field: 'name', descending: false },
      ],
    });
  });

  it('maps camelCase spellings to the snake_case field', () => {
    expect(parseOrderBy('createTime desc', ALLOWED)).toEqual({ fields: [{ field: 'create_time', descending: true }] });
  });

  it('rejects an unknown field, naming the fields it can sort by', () => {
    const error = caught(() => parseOrderBy('update_time desc', ALLOWED));
    expect(error.kind).toBe('invalid_request');
    expect(error.code).toBe('invalid_order_by');
    expect(error.param).toBe('orderBy');
    expect(error.message).toBe(
      "Invalid orderBy 'update_time desc': 'update_time' is not a field you can sort by. Sort by " +
        "one or more of: name, create_time, display_name, e.g. 'create_time desc, name'.",
    );
    expect(error.details).toEqual({ orderBy: 'update_time desc', allowed: ['name', 'create_time', 'display_name'] });
  });

  it.each([
    ['name,', 'it has an empty entry; separate field names with single commas'],
    ['name,,create_time', 'it has an empty entry; separate field names with single commas'],
    ['name up', "'up' after 'name' must be 'asc' or 'desc'"],
    ['name desc create_time', "unexpected 'create_time' after 'name desc'; separate fields with commas"],
    ['name, name desc', "'name' appears more than once"],
  ])('rejects %j', (text, problem) => {
    const error = caught(() => parseOrderBy(text, ALLOWED));
    expect(error.code).toBe('invalid_order_by');
    expect(error.message).toBe(
      `Invalid orderBy '${text}': ${problem}. Sort by one or more of: name, create_time, display_name, e.g. 'create_time desc, name'.`,
    );
  });

  it('gives a valid example even when only name is sortable', () => {
    expect(caught(() => parseOrderBy('x', ['name'])).message).toContain(
      "Sort by one or more of: name, e.g. 'name desc'.",
    );
  });
});

interface Row {
  name: string;
  create_time: string;
  display_name: string;
}
const row = (name: string, createTime: string, displayName = 'same'): Row => ({
  name,
  create_time: createTime,
  display_name: displayName,
});
const read = (resource: Row, field: string) => resource[field as keyof Row];

describe('compareBy', () => {
  const rows = [row('b', '2026-01-02'), row('a', '2026-01-02'), row('c', '2026-01-01'), row('d', '2026-01-03')];

  it('sorts by the fields in order, honouring desc', () => {
    expect([...rows].sort(compareBy(parseOrderBy('create_time', ALLOWED), read)).map((r) => r.name)).toEqual([
      'c',
      'a',
      'b',
      'd',
    ]);
    expect([...rows].sort(compareBy(parseOrderBy('create_time desc', ALLOWED), read)).map((r) => r.name)).toEqual([
      'd',
      'a',
      'b',
      'c',
    ]);
    expect([...rows].sort(compareBy(parseOrderBy('name desc', ALLOWED), read)).map((r) => r.name)).toEqual([
      'd',
      'c',
      'b',
      'a',
    ]);
  });

  it('breaks ties by name ascending, even when the other fields are descending', () => {
    const order = parseOrderBy('display_name desc, create_time desc', ALLOWED);
    expect([...rows].sort(compareBy(order, read)).map((r) => r.name)).toEqual(['d', 'a', 'b', 'c']);
  });

  it('compares as plain strings, not by locale', () => {
    const mixed = [row('b', 'x'), row('B', 'x'), row('a', 'x')];
    expect(mixed.sort(compareBy(parseOrderBy('name', ALLOWED), read)).map((r) => r.name)).toEqual(['B', 'a', 'b']);
  });
});

describe('sortKeyFor and compareSortKeys', () => {
  it('appends the name when the order does not include it', () => {
    expect(sortKeyFor(parseOrderBy('create_time desc', ALLOWED), read)(row('x', 't'))).toEqual(['t', 'x']);
    expect(sortKeyFor(parseOrderBy('name desc, create_time', ALLOWED), read)(row('x', 't'))).toEqual(['x', 't']);
  });

  it('orders keys with each field direction and the tie-break ascending', () => {
    const order = parseOrderBy('create_time desc', ALLOWED);
    expect(compareSortKeys(order, ['2', 'a'], ['1', 'a'])).toBe(-1);
    expect(compareSortKeys(order, ['1', 'a'], ['1', 'b'])).toBe(-1);
    expect(compareSortKeys(order, ['1', 'b'], ['1', 'a'])).toBe(1);
    expect(compareSortKeys(order, ['1', 'a'], ['1', 'a'])).toBe(0);
  });
});
