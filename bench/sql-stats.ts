import Database from 'better-sqlite3';

/**
 * Time spent inside SQLite per statement text, by wrapping better-sqlite3's Statement methods
 * (the prototype is shared, so every statement is covered, cached or not). The wrappers exist only
 * between start() and stop(), so CPU profiles taken outside that window are not perturbed.
 */

export interface SqlStat {
  sql: string;
  calls: number;
  totalMs: number;
  meanUs: number;
  maxUs: number;
  /** Calls that took over 2 ms (e.g. a commit that ran a WAL checkpoint). */
  slowCalls: number;
}

type Method = (...args: unknown[]) => unknown;
const METHODS = ['run', 'all', 'get', 'iterate'] as const;
const stats = new Map<string, { calls: number; totalMs: number; maxMs: number; slowCalls: number }>();
let originals: Record<string, Method> | null = null;

function statementPrototype(): Record<string, Method> {
  const probe = new Database(':memory:');
  try {
    return Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, Method>;
  } finally {
    probe.close();
  }
}

export function startSqlStats(): void {
  if (originals) return;
  stats.clear();
  const prototype = statementPrototype();
  originals = {};
  for (const method of METHODS) {
    const original = prototype[method]!;
    originals[method] = original;
    prototype[method] = function timed(this: { source: string }, ...args: unknown[]) {
      const began = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        let entry = stats.get(this.source);
        if (!entry) {
          entry = { calls: 0, totalMs: 0, maxMs: 0, slowCalls: 0 };
          stats.set(this.source, entry);
        }
        const took = performance.now() - began;
        entry.calls += 1;
        entry.totalMs += took;
        if (took > entry.maxMs) entry.maxMs = took;
        if (took > 2) entry.slowCalls += 1;
      }
    };
  }
}

export function stopSqlStats(): SqlStat[] {
  if (originals) {
    const prototype = statementPrototype();
    for (const method of METHODS) prototype[method] = originals[method]!;
    originals = null;
  }
  return [...stats.entries()]
    .map(([sql, entry]) => ({
      sql: sql.replace(/\s+/g, ' '),
      calls: entry.calls,
      totalMs: entry.totalMs,
      meanUs: (1000 * entry.totalMs) / entry.calls,
      maxUs: 1000 * entry.maxMs,
      slowCalls: entry.slowCalls,
    }))
    .sort((a, b) => b.totalMs - a.totalMs);
}
