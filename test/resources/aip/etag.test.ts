import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeEtag, etagMatches } from '../../../src/resources/aip/etag.ts';

describe('computeEtag', () => {
  it('is a quoted strong etag of 22 base64url characters', () => {
    expect(computeEtag(['apps/a/tools/t', '2026-01-01T00:00:00Z'])).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  });

  it('is a truncated SHA-256 of the parts', () => {
    const digest = createHash('sha256').update('s1:a\u0000n:2').digest('base64url').slice(0, 22);
    expect(computeEtag(['a', 2])).toBe(`"${digest}"`);
  });

  it('is stable for the same parts and changes with any part', () => {
    const etag = computeEtag(['name', 3]);
    expect(computeEtag(['name', 3])).toBe(etag);
    expect(computeEtag(['name', 4])).not.toBe(etag);
    expect(computeEtag(['other', 3])).not.toBe(etag);
    expect(computeEtag([3, 'name'])).not.toBe(etag);
  });

  it('does not confuse differently split parts or numbers with strings', () => {
    expect(computeEtag(['a', 'b'])).not.toBe(computeEtag(['a\u0000b']));
    expect(computeEtag(['ab', ''])).not.toBe(computeEtag(['a', 'b']));
    expect(computeEtag([1])).not.toBe(computeEtag(['1']));
  });
});

describe('etagMatches', () => {
  const current = computeEtag(['x']);
  const bare = current.slice(1, -1);

  it('lets a write without an etag through', () => {
    expect(etagMatches(undefined, current)).toBe(true);
    expect(etagMatches('', current)).toBe(true);
    expect(etagMatches('*', current)).toBe(true);
  });

  it('matches the same etag, quoted, bare or weak', () => {
    expect(etagMatches(current, current)).toBe(true);
    expect(etagMatches(bare, current)).toBe(true);
    expect(etagMatches(`W/${current}`, current)).toBe(true);
    expect(etagMatches(` ${current} `, current)).toBe(true);
  });

  it('rejects a different etag', () => {
    expect(etagMatches(computeEtag(['y']), current)).toBe(false);
    expect(etagMatches('"stale"', current)).toBe(false);
    expect(etagMatches(bare.slice(1), current)).toBe(false);
  });
});
