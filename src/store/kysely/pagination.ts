import { InvalidCursorError } from '../../domain/invalid-cursor-error.ts';
import type { Page } from '../../domain/page.ts';

export { InvalidCursorError };

/**
 * Keyset pagination. A cursor is base64url(JSON(sort key of the last row of the page)), so
 * the next page is `WHERE key > cursor ORDER BY key` — stable under concurrent inserts and
 * cheap at any depth, unlike OFFSET.
 */

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor and checks it has the shape `isKey` expects; anything else (foreign,
 * truncated or hand-edited cursors) is an `InvalidCursorError`, never a database error.
 */
export function decodeCursor<K>(cursor: string, isKey: (value: unknown) => value is K): K {
  if (!BASE64URL.test(cursor)) throw new InvalidCursorError();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!isKey(value)) throw new InvalidCursorError();
  return value;
}

/** Non-null cursor decoded, absent or null cursor means "first page". */
export function decodeOptionalCursor<K>(
  cursor: string | null | undefined,
  isKey: (value: unknown) => value is K,
): K | undefined {
  return cursor === undefined || cursor === null ? undefined : decodeCursor(cursor, isKey);
}

/** The number of rows to fetch: one more than the page, to learn whether a next page exists. */
export function fetchSize(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`Page limit must be a positive integer, got ${limit}`);
  }
  return limit + 1;
}

/** Cuts the `limit + 1` fetched rows to a page and derives the next cursor from its last row. */
export function toPage<T>(rows: T[], limit: number, keyOf: (row: T) => Record<string, string | number>): Page<T> {
  if (rows.length <= limit) return { data: rows, nextCursor: null };
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  // limit >= 1 (checked by fetchSize), so a page that overflowed has a last row.
  if (last === undefined) return { data, nextCursor: null };
  return { data, nextCursor: encodeCursor(keyOf(last)) };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
