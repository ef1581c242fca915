import { describe, expect, it } from 'vitest';
import { HistoryWindows } from '../../src/store/history-windows.ts';
import type { WindowItem } from '../../src/domain/queries.ts';

const item = (seq: number): WindowItem => ({
  seq,
  groupId: `g${seq}`,
  payload: { type: 'message', role: 'user', content: [{ type: 'text', text: `m${seq}` }] },
});
const items = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => item(from + index));
const seqs = (window: readonly WindowItem[] | undefined) => window?.map((entry) => entry.seq);

describe('history windows kept per conversation version', () => {
  it('serves a window only at the version it was read at, and only as long as it was read', () => {
    const windows = new HistoryWindows();
    windows.remember('c', 3, items(11, 15), 5);
    expect(seqs(windows.get('c', 3, 5))).toEqual([11, 12, 13, 14, 15]);
    expect(seqs(windows.get('c', 3, 2))).toEqual([14, 15]);
    expect(windows.get('c', 4, 5)).toBeUndefined();
    expect(windows.get('c', 3, 6)).toBeUndefined(); // a longer window than was read
    // A short history is the whole one: any window is served.
    windows.remember('short', 1, items(1, 2), 5);
    expect(seqs(windows.get('short', 1, 100))).toEqual([1, 2]);
  });

  it('extends a window by a commit that moved the version on by one, deduplicating by seq', () => {
    const windows = new HistoryWindows();
    windows.remember('c', 3, items(11, 15), 5);
    windows.committed('c', { inserted: null, versions: [4], appended: [item(15), item(16), item(17)] });
    expect(windows.get('c', 3, 5)).toBeUndefined();
    expect(seqs(windows.get('c', 4, 5))).toEqual([13, 14, 15, 16, 17]);
    // A bump without items (a metadata change) keeps the items at the new version.
    windows.committed('c', { inserted: null, versions: [5], appended: [] });
    expect(seqs(windows.get('c', 5, 5))).toEqual([13, 14, 15, 16, 17]);
  });

  it('forgets a window on any other change: items without a bump, two bumps, a gap, a deletion', () => {
    const windows = new HistoryWindows();
    windows.remember('a', 3, items(1, 3), 10);
    windows.committed('a', { inserted: null, versions: [], appended: [item(4)] });
    expect(windows.get('a', 3, 10)).toBeUndefined();

    windows.remember('b', 3, items(1, 3), 10);
    windows.committed('b', { inserted: null, versions: [4, 5], appended: [item(4)] });
    expect(windows.get('b', 5, 10)).toBeUndefined();

    windows.remember('c', 3, items(1, 3), 10);
    windows.committed('c', { inserted: null, versions: [5], appended: [item(4)] }); // another process bumped to 4
    expect(windows.get('c', 5, 10)).toBeUndefined();

    windows.remember('d', 3, items(1, 3), 10);
    windows.forget('d');
    expect(windows.get('d', 3, 10)).toBeUndefined();
  });

  it('keeps a new conversation whole, and never replaces a later window by an earlier read', () => {
    const windows = new HistoryWindows();
    windows.committed('c', { inserted: 0, versions: [1], appended: items(1, 2) });
    expect(seqs(windows.get('c', 1, 201))).toEqual([1, 2]);
    windows.remember('c', 0, [], 201); // a read that started before the commit
    expect(seqs(windows.get('c', 1, 201))).toEqual([1, 2]);
  });

  it('stays within its item budget, evicting the least recently used, and drops windows read too long ago', () => {
    let now = 0;
    const windows = new HistoryWindows(10, 1_000, () => now);
    windows.remember('a', 1, items(1, 5), 5);
    windows.remember('b', 1, items(1, 5), 5);
    windows.get('a', 1, 5); // a is now the most recent
    windows.remember('c', 1, items(1, 5), 5);
    expect(windows.get('b', 1, 5)).toBeUndefined();
    expect(windows.get('a', 1, 5)).toBeDefined();
    now = 1_001;
    expect(windows.get('a', 1, 5)).toBeUndefined();
    windows.remember('d', 1, items(1, 5), 5);
    windows.clear();
    expect(windows.get('d', 1, 5)).toBeUndefined();
  });

  it("sizes a new conversation's window by its first read, so the budget holds as many conversations as it can", () => {
    const windows = new HistoryWindows(250);
    // Twenty new conversations of 30 items, each read at once with a window of 11: 220 items kept.
    for (let index = 0; index < 20; index++) {
      windows.committed(`c${index}`, { inserted: 0, versions: [1], appended: items(1, 30) });
      expect(seqs(windows.get(`c${index}`, 1, 11))).toEqual(seqs(items(20, 30)));
    }
    for (let index = 0; index < 20; index++) expect(seqs(windows.get(`c${index}`, 1, 11))).toEqual(seqs(items(20, 30)));
    // No longer whole: a longer window is read from the database.
    expect(windows.get('c0', 1, 12)).toBeUndefined();
  });

  it('extends a window in place commit after commit, keeping its latest items and its budget exact', () => {
    const windows = new HistoryWindows(12);
    windows.remember('c', 0, items(1, 5), 5);
    for (let seq = 6; seq <= 100; seq++)
      windows.committed('c', { inserted: null, versions: [seq - 5], appended: [item(seq)] });
    expect(seqs(windows.get('c', 95, 5))).toEqual([96, 97, 98, 99, 100]);
    // 5 items are counted: a second window of 7 fits beside it, an eighth item would not.
    windows.remember('d', 1, items(1, 7), 7);
    expect(windows.get('c', 95, 5)).toBeDefined();
    windows.remember('e', 1, items(1, 1), 1);
    expect(windows.get('d', 1, 7)).toBeUndefined();
  });

  it('keeps the windows in use among many, moving one to the front of the line only now and then', () => {
    const windows = new HistoryWindows(100);
    for (let index = 0; index < 100; index++) windows.remember(`c${index}`, 1, items(1, 1), 1);
    // The oldest is read: it moves, far from eviction. The newest, read over and over, stays put.
    expect(windows.get('c0', 1, 1)).toBeDefined();
    for (let read = 0; read < 30; read++) expect(windows.get('c99', 1, 1)).toBeDefined();
    // Forty new conversations evict forty: the least recently used, never the two in use.
    for (let index = 100; index < 140; index++) windows.remember(`c${index}`, 1, items(1, 1), 1);
    expect(windows.get('c0', 1, 1)).toBeDefined();
    expect(windows.get('c99', 1, 1)).toBeDefined();
    for (let index = 1; index <= 40; index++) expect(windows.get(`c${index}`, 1, 1)).toBeUndefined();
    expect(windows.get('c41', 1, 1)).toBeDefined();
  });
});
