import { describe, expect, it } from 'vitest';
import { LedgerChangeFeed } from '../../src/engine/ledger/ledger-change-feed.ts';
import type { LedgerEntryRecord } from '../../src/domain/records.ts';

function row(id: string, updatedAt: string, state: LedgerEntryRecord['state'] = 'pending'): LedgerEntryRecord {
  return {
    id,
    appId: 'app',
    conversationId: 'c',
    turnId: 't',
    agentName: 'a',
    toolName: 'x',
    kind: 'client',
    arguments: {},
    argumentsHash: 'h',
    callIndex: 0,
    state,
    deadlineAt: null,
    timeoutPolicy: 'error_result',
    result: null,
    isError: false,
    submittedBy: null,
    submittedAt: null,
    idempotencyKey: null,
    createdAt: updatedAt,
    updatedAt,
  };
}

/** A ledger in memory; `listChangedSince` behaves like the SQL query. */
class MemoryLedger {
  rows: LedgerEntryRecord[] = [];
  queries = 0;
  async listChangedSince(_appId: string, since: string, limit: number): Promise<LedgerEntryRecord[]> {
    this.queries += 1;
    return this.rows
      .filter((entry) => entry.updatedAt >= since)
      .sort((a, b) => (a.updatedAt + a.id).localeCompare(b.updatedAt + b.id))
      .slice(0, limit);
  }
}

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

describe('LedgerChangeFeed', () => {
  it('reports a row committed late with an earlier time, once, and a state change again', async () => {
    const ledger = new MemoryLedger();
    const feed = new LedgerChangeFeed(ledger, { now: () => new Date(at(10)) }, { pollMs: 10, lookbackMs: 5_000 });
    const seen: string[] = [];
    const stop = feed.subscribe('app', (entries) => seen.push(...entries.map((entry) => `${entry.id}:${entry.state}`)));
    ledger.rows.push(row('b', at(12)));
    await settle();
    // Stamped before the last row the feed saw, but committed after it looked: the look-back finds it.
    ledger.rows.push(row('a', at(11)));
    await settle();
    ledger.rows = ledger.rows.map((entry) => (entry.id === 'b' ? row('b', at(13), 'completed') : entry));
    await settle();
    expect(seen).toEqual(['b:pending', 'a:pending', 'b:completed']);
    stop();
  });

  it('stops polling when the last subscriber leaves', async () => {
    const ledger = new MemoryLedger();
    const feed = new LedgerChangeFeed(ledger, { now: () => new Date(at(0)) }, { pollMs: 5, lookbackMs: 1_000 });
    const stop = feed.subscribe('app', () => {});
    await settle();
    stop();
    const after = ledger.queries;
    expect(after).toBeGreaterThan(0);
    await settle();
    expect(ledger.queries).toBe(after);
  });

  it('makes progress through a burst larger than one batch', async () => {
    const ledger = new MemoryLedger();
    for (let index = 0; index < 1_200; index += 1)
      ledger.rows.push(row(`r${String(index).padStart(4, '0')}`, at(20 + Math.floor(index / 10))));
    const feed = new LedgerChangeFeed(ledger, { now: () => new Date(at(20)) }, { pollMs: 5, lookbackMs: 1_000 });
    const ids = new Set<string>();
    const stop = feed.subscribe('app', (entries) => entries.forEach((entry) => ids.add(entry.id)));
    for (let wait = 0; wait < 50 && ids.size < 1_200; wait += 1) await settle();
    stop();
    expect(ids.size).toBe(1_200);
  });
});
