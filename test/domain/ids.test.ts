import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/domain/ids.ts';

afterEach(() => vi.useRealTimers());

describe('newId', () => {
  it('keeps the shape of ids: the prefix, then 24 URL-safe characters', () => {
    expect(newId('thread')).toMatch(/^thread_[0-9A-Za-z]{24}$/);
    expect(newId('x', 30)).toMatch(/^x_[0-9A-Za-z]{30}$/);
  });

  it('sorts ids made later after earlier ones, so new index entries land together', () => {
    vi.useFakeTimers();
    const made: string[] = [];
    for (const at of [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(2026, 5, 1), Date.UTC(2099, 0, 1)]) {
      vi.setSystemTime(at);
      made.push(newId('item'), newId('item'));
    }
    // In ASCII order, as SQLite compares them.
    for (let index = 2; index < made.length; index++) expect(made[index]! > made[index - 2]!).toBe(true);
    // Within a millisecond the rest is random: the ids differ, nobody can guess one from another.
    expect(new Set(made).size).toBe(made.length);
    expect(made[0]!.slice(5, 13)).toBe(made[1]!.slice(5, 13));
  });
});
