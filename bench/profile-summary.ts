import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time and by
 * inclusive time, with the file they live in.
 *   node --import tsx bench/profile-summary.ts FILE.cpuprofile [top=25]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileLine {
  name: string;
  where: string;
  selfPct: number;
  totalPct: number;
}

function where(url: string, line: number): string {
  if (!url) return '(native)';
  let path = url.replace(/^file:\/\//, '');
  if (path.startsWith('/')) path = relative(process.cwd(), path);
  path = path.replace(/^node_modules\//, 'nm/').replace(/\/dist\/.*$/, '');
  return `${path}:${line + 1}`;
}

export interface ProfileSummary {
  /** Wall time covered by the profile, and the part of it the thread was idle (waiting for I/O or timers). */
  wallMs: number;
  idleMs: number;
  selfTop: ProfileLine[];
  totalTop: ProfileLine[];
  byPackage: Array<{ name: string; selfPct: number }>;
}

export function summariseProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // Self time per node from samples and time deltas (hitCount is unreliable with --cpu-prof).
  const selfTime = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i]!;
    selfTime.set(id, (selfTime.get(id) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
  }
  let total = 0;
  let idle = 0;
  for (const [id, time] of selfTime) {
    if (byId.get(id)?.callFrame.functionName === '(idle)') idle += time;
    else total += time;
  }
  const SQLITE_NATIVES = new Set(['Statement', 'all', 'run', 'get', 'iterate', 'exec', 'pragma']);
  const SPECIAL = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);
  /** Native frames (no url) are shown and counted with the nearest JavaScript caller. */
  const jsCaller = (id: number): ProfileNode | undefined => {
    for (let cursor = parent.get(id); cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)!;
      // The benchmark's own SQL timing wrapper is transparent.
      if (frame.callFrame.url && !frame.callFrame.url.endsWith('/bench/sql-stats.ts')) return frame;
    }
    return undefined;
  };
  const key = (node: ProfileNode) => {
    const name = node.callFrame.functionName || '(anonymous)';
    if (node.callFrame.url || SPECIAL.has(name))
      return `${name} ${where(node.callFrame.url, node.callFrame.lineNumber)}`;
    const caller = jsCaller(node.id);
    const from = caller
      ? `${caller.callFrame.functionName || '(anonymous)'} ${where(caller.callFrame.url, caller.callFrame.lineNumber)}`
      : 'native';
    return `${name} (native, from ${from})`;
  };
  const packageOf = (url: string, name: string): string => {
    if (name === '(garbage collector)') return '(gc)';
    if (url.includes('node_modules/')) {
      const rest = url.split('node_modules/').pop()!;
      return rest
        .split('/')
        .slice(0, rest.startsWith('@') ? 2 : 1)
        .join('/');
    }
    if (!url || url.startsWith('node:')) return '(node internals)';
    if (url.includes('/bench/')) return '(bench instrumentation)';
    return 'baton src';
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  for (const [id, time] of selfTime) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(program)') continue;
    self.set(key(node), (self.get(key(node)) ?? 0) + time);
    const owner = node.callFrame.url || SPECIAL.has(node.callFrame.functionName) ? node : (jsCaller(node.id) ?? node);
    // better-sqlite3's native statement calls (the SQLite work) are made from Kysely's driver.
    const sqliteNative =
      !node.callFrame.url &&
      SQLITE_NATIVES.has(node.callFrame.functionName) &&
      /node_modules\/(kysely|better-sqlite3)\//.test(owner.callFrame.url);
    const pkg = sqliteNative ? 'better-sqlite3' : packageOf(owner.callFrame.url, node.callFrame.functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + time);
    // Inclusive: once per distinct function on the stack of this sample.
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)!;
      if (frame.callFrame.functionName === '(root)') continue;
      const k = key(frame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + time);
    }
  }
  const line = (k: string): ProfileLine => {
    const space = k.startsWith('(garbage collector)') ? '(garbage collector)'.length : k.indexOf(' ');
    return {
      name: k.slice(0, space),
      where: k.slice(space + 1),
      selfPct: (100 * (self.get(k) ?? 0)) / total,
      totalPct: (100 * (inclusive.get(k) ?? 0)) / total,
    };
  };
  const selfTop = [...self.keys()]
    .sort((a, b) => (self.get(b) ?? 0) - (self.get(a) ?? 0))
    .slice(0, top)
    .map(line);
  const totalTop = [...inclusive.keys()]
    .sort((a, b) => (inclusive.get(b) ?? 0) - (inclusive.get(a) ?? 0))
    .slice(0, top)
    .map(line);
  const byPackage = [...packages.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([name, time]) => ({ name, selfPct: (100 * time) / total }));
  return { wallMs: (profile.endTime - profile.startTime) / 1000, idleMs: idle / 1000, selfTop, totalTop, byPackage };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: bench/profile-summary.ts FILE.cpuprofile [top]');
  const summary = summariseProfile(file, Number(process.argv[3] ?? 25));
  const fmt = (lines: ProfileLine[]) =>
    lines
      .map(
        (l) =>
          `${l.selfPct.toFixed(1).padStart(5)}% self ${l.totalPct.toFixed(1).padStart(5)}% total  ${l.name}  ${l.where}`,
      )
      .join('\n');
  console.log(
    `Wall ${summary.wallMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms (${((100 * summary.idleMs) / summary.wallMs).toFixed(1)}%); ` +
      `percentages below are of busy time.\n`,
  );
  console.log(
    'By package (self time):\n' +
      summary.byPackage
        .slice(0, 15)
        .map((p) => `${p.selfPct.toFixed(1).padStart(5)}%  ${p.name}`)
        .join('\n'),
  );
  console.log('\nTop self time:\n' + fmt(summary.selfTop));
  console.log('\nTop inclusive time:\n' + fmt(summary.totalTop));
}
