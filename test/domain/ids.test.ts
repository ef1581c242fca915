import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';

describe('ids', () => {
  it('mints distinct, prefixed, URL-safe ids across refills of the random pool', () => {
    // 2,000 ids of 24 bytes draw 48 kB: the 4 kB pool is refilled a dozen times.
    const ids = Array.from({ length: 2_000 }, () => newId('call'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^call_[0-9A-Za-z]{24}$/);
    expect(newId('x', 5000)).toMatch(/^x_[0-9A-Za-z]{5000}$/); // longer than the pool
    // Every symbol turns up: the bytes are not stuck (a pool never refilled would repeat).
    expect(new Set(ids.join('').replaceAll('call_', '')).size).toBe(62);
  });
});
