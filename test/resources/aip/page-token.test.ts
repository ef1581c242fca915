import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PageTokenCodec, readPageSize } from '../../../src/resources/aip/page-token.ts';
import { caught } from './caught.ts';

const secret = Buffer.alloc(32, 7);
const codec = new PageTokenCodec(secret);
const state = {
  position: ['2026-01-01T00:00:00Z', 'projects/p/locations/l/apps/a/tools/weather'],
  query: 'parent=apps/a|filter=|orderBy=create_time desc',
};
const INVALID = 'Invalid pageToken: pass the nextPageToken of a previous list response unchanged.';

describe('PageTokenCodec (AIP-158)', () => {
  it('round-trips the position for the same query', () => {
    const token = codec.encode(state);
    expect(codec.decode(token, state.query)).toEqual(state.position);
    expect(new PageTokenCodec(Buffer.from(secret)).decode(token, state.query)).toEqual(state.position);
    expect(codec.decode(codec.encode({ position: [], query: '' }), '')).toEqual([]);
  });

  it('makes opaque, URL-safe tokens that reveal nothing of the state', () => {
    const token = codec.encode(state);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(token, 'base64url').toString('latin1');
    expect(bytes).not.toContain('weather');
    expect(bytes).not.toContain('2026');
    expect(Buffer.from(token, 'base64').toString('latin1')).not.toContain('weather');
    // A random IV: the same state never gives the same token twice.
    expect(codec.encode(state)).not.toBe(token);
  });

  it('rejects tokens that were edited, truncated, made up or sealed with another key', () => {
    const token = codec.encode(state);
    const flipped = Buffer.from(token, 'base64url');
    flipped[20] = flipped[20]! ^ 1;
    const forged = Buffer.from(JSON.stringify({ p: ['z'], q: 'x' })).toString('base64url');
    for (const bad of [
      flipped.toString('base64url'),
      token.slice(0, -4),
      token + 'AA',
      forged,
      'abc',
      'not a token!',
      `${token}=`,
      'x'.repeat(10_000),
      new PageTokenCodec(randomBytes(32)).encode(state),
    ]) {
      const error = caught(() => codec.decode(bad, state.query));
      expect(error.kind).toBe('invalid_request');
      expect(error.code).toBe('invalid_page_token');
      expect(error.param).toBe('pageToken');
      expect(error.message).toBe(INVALID);
    }
  });

  it('rejects a token issued for a different request', () => {
    const token = codec.encode(state);
    const error = caught(() => codec.decode(token, `${state.query}|filter=displayName="x"`));
    expect(error.kind).toBe('invalid_request');
    expect(error.code).toBe('page_token_mismatch');
    expect(error.param).toBe('pageToken');
    expect(error.message).toMatch(
      /^pageToken was issued for a different request \(filter, orderBy or parent changed\); .*omit pageToken/,
    );
  });

  it('requires a 32-byte secret', () => {
    expect(caught(() => new PageTokenCodec(Buffer.alloc(16))).code).toBe('invalid_page_token_secret');
  });
});

describe('readPageSize', () => {
  const SIZE_ERROR =
    'pass a non-negative whole number (0 or omitted uses the default of 50; values above 1000 are lowered to 1000).';

  it('uses the default for missing or zero', () => {
    expect(readPageSize(undefined)).toBe(50);
    expect(readPageSize(null)).toBe(50);
    expect(readPageSize('')).toBe(50);
    expect(readPageSize(0)).toBe(50);
    expect(readPageSize('0')).toBe(50);
    expect(readPageSize(undefined, { defaultSize: 20 })).toBe(20);
  });

  it('accepts whole numbers and numeric strings, clamping to the maximum', () => {
    expect(readPageSize(7)).toBe(7);
    expect(readPageSize(' 25 ')).toBe(25);
    expect(readPageSize(1000)).toBe(1000);
    expect(readPageSize(1001)).toBe(1000);
    expect(readPageSize('99999999999999999999999')).toBe(1000);
    expect(readPageSize(500, { maxSize: 100 })).toBe(100);
  });

  it.each([
    [-1, "'-1'"],
    ['-1', "'-1'"],
    [2.5, "'2.5'"],
    ['2.5', "'2.5'"],
    ['ten', "'ten'"],
    [Number.NaN, "'NaN'"],
    [Number.POSITIVE_INFINITY, "'Infinity'"],
    [true, 'of type boolean'],
    [[5], 'of type array'],
  ])('rejects %j', (value, shown) => {
    const error = caught(() => readPageSize(value));
    expect(error.kind).toBe('invalid_request');
    expect(error.code).toBe('invalid_page_size');
    expect(error.param).toBe('pageSize');
    expect(error.message).toBe(`Invalid pageSize ${shown}: ${SIZE_ERROR}`);
  });
});
