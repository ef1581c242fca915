import { describe, expect, it } from 'vitest';
import { parseOrderBy, sortKeyFor, type OrderBy } from '../../../src/resources/aip/order-by.ts';
import { PageTokenCodec } from '../../../src/resources/aip/page-token.ts';
import { paginate } from '../../../src/resources/aip/paginate.ts';
import { caught } from './caught.ts';

interface Tool {
  name: string;
  create_time: string;
}
const codec = new PageTokenCodec(Buffer.alloc(32, 1));
const tool = (name: string, createTime = '2026-01-01'): Tool => ({ name, create_time: createTime });
const read = (resource: Tool, field: string) => resource[field as keyof Tool];
const names = (tools: Tool[]) => tools.map((entry) => entry.name);

function list(items: Tool[], order: OrderBy, pageSize: number, pageToken?: string, query = 'q') {
  return paginate(items, { pageSize, pageToken, query, order, sortKey: sortKeyFor(order, read), codec });
}

/** Follows nextPageToken to the end, collecting every page. */
function walk(items: Tool[], order: OrderBy, pageSize: number): string[][] {
  const pages: string[][] = [];
  let token: string | undefined;
  do {
    const result = list(items, order, pageSize, token);
    pages.push(names(result.page));
    token = result.nextPageToken;
  } while (token !== '' && pages.length < 100);
  return pages;
}

describe('paginate (AIP-158)', () => {
  const byName = parseOrderBy(undefined, ['name', 'create_time']);
  const items = ['e', 'a', 'd', 'c', 'b'].map((name) => tool(name));

  it('returns sorted pages and an empty nextPageToken on the last one', () => {
    expect(walk(items, byName, 2)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(walk(items, byName, 5)).toEqual([['a', 'b', 'c', 'd', 'e']]);
    expect(walk(items, byName, 50)).toEqual([['a', 'b', 'c', 'd', 'e']]);
    expect(list([], byName, 10)).toEqual({ page: [], nextPageToken: '' });
  });

  it('gives no token when a page ends exactly at the last item', () => {
    const four = ['d', 'b', 'c', 'a'].map((name) => tool(name));
    const first = list(four, byName, 2);
    expect(first.nextPageToken).not.toBe('');
    const second = list(four, byName, 2, first.nextPageToken);
    expect(names(second.page)).toEqual(['c', 'd']);
    expect(second.nextPageToken).toBe('');
  });

  it('treats an empty pageToken as the first page and does not mutate the input', () => {
    const input = [...items];
    expect(names(list(input, byName, 2, '').page)).toEqual(['a', 'b']);
    expect(names(input)).toEqual(['e', 'a', 'd', 'c', 'b']);
  });

  it('honours descending fields, with the name breaking ties ascending', () => {
    const order = parseOrderBy('create_time desc', ['name', 'create_time']);
    const rows = [tool('a', '1'), tool('b', '2'), tool('c', '2'), tool('d', '3'), tool('e', '1')];
    expect(walk(rows, order, 2)).toEqual([['d', 'b'], ['c', 'a'], ['e']]);
    expect(walk(rows, parseOrderBy('name desc', ['name']), 2)).toEqual([['e', 'd'], ['c', 'b'], ['a']]);
  });

  it('neither repeats nor skips items when the list changes between pages', () => {
    const first = list(items, byName, 2);
    expect(names(first.page)).toEqual(['a', 'b']);
    // 'b' (the last returned) is deleted, 'aa' is inserted before the position, 'bb' after it.
    const changed = [tool('a'), tool('aa'), tool('bb'), tool('c'), tool('d'), tool('e')];
    const second = list(changed, byName, 2, first.nextPageToken);
    expect(names(second.page)).toEqual(['bb', 'c']);
    expect(names(list(changed, byName, 2, second.nextPageToken).page)).toEqual(['d', 'e']);
  });

  it('returns an empty last page when everything after the position was deleted', () => {
    const first = list(items, byName, 2);
    expect(list([tool('a'), tool('b')], byName, 2, first.nextPageToken)).toEqual({ page: [], nextPageToken: '' });
  });

  it('rejects a token from a different request or one that was tampered with', () => {
    const first = list(items, byName, 2);
    expect(caught(() => list(items, byName, 2, first.nextPageToken, 'other')).code).toBe('page_token_mismatch');
    expect(caught(() => list(items, byName, 2, 'garbage')).code).toBe('invalid_page_token');
  });

  it('rejects a token whose position does not fit the sort key', () => {
    const token = codec.encode({ position: ['only-one'], query: 'q' });
    const order = parseOrderBy('create_time', ['name', 'create_time']);
    const error = caught(() => list(items, order, 2, token));
    expect(error.code).toBe('invalid_page_token');
    expect(error.param).toBe('pageToken');
  });

  it('refuses sort keys that are not unique, which would skip items at a page boundary', () => {
    const error = caught(() =>
      paginate(items, { pageSize: 2, query: 'q', order: byName, sortKey: () => ['same'], codec }),
    );
    expect(error.kind).toBe('internal');
    expect(error.code).toBe('duplicate_sort_key');
  });

  it('refuses a page size that is not a positive whole number', () => {
    expect(caught(() => list(items, byName, 0)).code).toBe('internal_error');
    expect(caught(() => list(items, byName, 1.5)).kind).toBe('internal');
  });
});
