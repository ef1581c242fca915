import { readFileSync } from 'node:fs';

/**
 * Where a server's CPU goes, by area, from a V8 .cpuprofile (the floor phase, bench/floor.ts):
 * Fastify, zod, Kysely's query building, compiling and execution, SQLite, JSON, Node's HTTP
 * stack, GC, and Baton's own code by layer (idempotency and logging apart).
 * - **self**: each sample counts once, for the innermost frame that belongs to an area. A native
 *   frame counts for its JavaScript caller, but for SQLite's statement calls (`run`, `all`, `get`,
 *   `iterate`: SQLite's own work) and `JSON.parse` / `JSON.stringify`. The shares sum to 100 %.
 * - **inclusive**: each sample counts once for every area with a frame on its stack, so an area
 *   includes what it calls (Baton's store includes Kysely and SQLite below it).
 * The bench's own wrappers (bench/sql-stats.ts, bench/statement-counter.ts) are transparent.
 *
 * A sample counts for the time since the one before, but at most 4 sampling intervals (the median
 * gap): on a busy machine the server is often off the CPU for tens of milliseconds, and the sample
 * after such a gap would take all of it (one sample of 0.47 s gave a Kysely function 6 % of a
 * profile). Capped, the shares follow the CPU the process got, not the wall time it waited.
 *   node --import tsx bench/profile-areas.ts FILE.cpuprofile
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

export interface AreaShare {
  area: string;
  /** Share of the busy (non-idle) samples, %. */
  pct: number;
}

export interface ProfileAreas {
  /** Busy time in the profile, ms (samples that were not idle, each capped as above). */
  busyMs: number;
  /** Busy time without the cap, ms: wall time while not idle, descheduled time included. */
  uncappedBusyMs: number;
  self: AreaShare[];
  inclusive: AreaShare[];
  /** Functions by self time (capped), a native one shown with its JavaScript caller. */
  functions: Array<{ name: string; area: string; pct: number }>;
}

const SQLITE_CALLS = new Set(['run', 'all', 'get', 'iterate']);
const FASTIFY_PACKAGES = [
  'fastify',
  '@fastify\\/[^/]+',
  'find-my-way',
  'fast-json-stringify',
  'avvio',
  'light-my-request',
  'fast-querystring',
  'secure-json-parse',
  'fast-uri',
  'toad-cache',
  'abstract-logging',
  'pino',
  'rfdc',
  'fast-decode-uri-component',
  'content-type',
  'proxy-addr',
  'forwarded',
];
const FASTIFY = new RegExp(`node_modules\\/(${FASTIFY_PACKAGES.join('|')})\\/`);
const TRANSPARENT = /\/bench\/(sql-stats|statement-counter)\.ts$/;

/** The area of a frame that has a URL (JavaScript), or null when it has none. */
export function areaOfUrl(url: string): string | null {
  if (!url) return null;
  const kysely = /node_modules\/kysely\/dist\/(?:esm|cjs)\/([^/]+)/.exec(url);
  if (kysely) {
    const part = kysely[1]!;
    if (part === 'query-compiler' || url.endsWith('query-compiler.js')) return 'Kysely: compiling';
    if (['query-executor', 'driver', 'dialect', 'plugin'].includes(part)) return 'Kysely: executing (driver, rows)';
    return 'Kysely: building (builders, nodes, freeze)';
  }
  if (url.includes('node_modules/better-sqlite3/')) return 'SQLite (better-sqlite3)';
  if (url.includes('node_modules/zod/')) return 'zod';
  if (/node_modules\/ajv/.test(url)) return 'ajv';
  if (FASTIFY.test(url)) return 'Fastify (routing, hooks, body parsing, reply)';
  if (/node_modules\/(ai|@ai-sdk\/[^/]+)\//.test(url)) return 'AI SDK';
  if (url.includes('node_modules/@opentelemetry/')) return 'OpenTelemetry';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:')) return 'Node (http, net, streams, timers, crypto)';
  // Baton's own code, from the sources (tsx) or compiled (dist/, as the bench runs it).
  const src = /\/(?:src|dist)\/(.+)$/.exec(url);
  if (src) {
    const path = src[1]!;
    if (/idempot/i.test(path)) return 'Baton: idempotency';
    if (/(^|\/)(request-log|log-|logger|logging)/.test(path)) return 'Baton: logging';
    const layer = path.split('/')[0]!;
    const names: Record<string, string> = {
      store: 'Baton: store (repos, rows)',
      engine: 'Baton: engine',
      models: 'Baton: scripted model',
      faces: 'Baton: faces (routes, wire shapes)',
      server: 'Baton: server (auth, limits, hooks)',
      domain: 'Baton: domain',
      resources: 'Baton: resources (agents, keys, webhooks)',
      tools: 'Baton: tools',
    };
    return names[layer] ?? `Baton: ${layer}`;
  }
  if (url.includes('/bench/servers/floor-server.ts')) return 'floor server';
  if (url.includes('/bench/')) return 'bench instrumentation';
  return 'other';
}

export function profileAreas(file: string): ProfileAreas {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const gaps = samples.map((_, i) => deltas[i + 1] ?? deltas[i] ?? 0);
  const sorted = [...gaps].sort((a, b) => a - b);
  const cap = 4 * (sorted[Math.floor(sorted.length / 2)] ?? 0);
  const time = new Map<number, number>();
  let uncapped = 0;
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i]!;
    time.set(id, (time.get(id) ?? 0) + Math.min(gaps[i]!, cap));
    if (byId.get(id)!.callFrame.functionName !== '(idle)') uncapped += gaps[i]!;
  }
  /** The nearest JavaScript frame above `id` that is not one of the bench's wrappers. */
  const caller = (id: number): ProfileNode | undefined => {
    for (let cursor = parent.get(id); cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)!;
      if (frame.callFrame.url && !TRANSPARENT.test(frame.callFrame.url)) return frame;
    }
    return undefined;
  };
  /** A frame's own area; null for the bench's wrappers and the root. */
  const areaOf = (node: ProfileNode): string | null => {
    const { functionName: name, url } = node.callFrame;
    if (name === '(garbage collector)') return 'GC';
    if (name === '(program)') return 'V8 (program: compiling, IC misses)';
    if (name === '(root)') return null;
    if (url) return TRANSPARENT.test(url) ? null : areaOfUrl(url);
    if (name === 'parse' || name === 'stringify') return 'JSON (parse, stringify)';
    const from = caller(node.id);
    const callerArea = from ? areaOfUrl(from.callFrame.url) : null;
    if (SQLITE_CALLS.has(name) && callerArea !== null && /Kysely|SQLite|store|floor/.test(callerArea))
      return 'SQLite (better-sqlite3)';
    return callerArea ?? 'other';
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const functions = new Map<string, { area: string; time: number }>();
  const nameOf = (node: ProfileNode): string => {
    const { functionName, url } = node.callFrame;
    const name = functionName || '(anonymous)';
    if (url) return `${name} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}`;
    const from = caller(node.id);
    return from ? `${name} (native, from ${nameOf(from)})` : name;
  };
  let busy = 0;
  for (const [id, took] of time) {
    const leaf = byId.get(id)!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    busy += took;
    let own: string | null = null;
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const area = areaOf(byId.get(cursor)!);
      if (area === null) continue;
      own ??= area;
      seen.add(area);
    }
    own ??= 'other';
    self.set(own, (self.get(own) ?? 0) + took);
    const fn = functions.get(nameOf(leaf)) ?? { area: own, time: 0 };
    fn.time += took;
    functions.set(nameOf(leaf), fn);
    for (const area of seen) inclusive.set(area, (inclusive.get(area) ?? 0) + took);
  }
  const shares = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).map(([area, took]) => ({ area, pct: (100 * took) / busy }));
  return {
    busyMs: busy / 1000,
    uncappedBusyMs: uncapped / 1000,
    self: shares(self),
    inclusive: shares(inclusive),
    functions: [...functions.entries()]
      .sort((a, b) => b[1].time - a[1].time)
      .slice(0, 40)
      .map(([name, entry]) => ({ name, area: entry.area, pct: (100 * entry.time) / busy })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: bench/profile-areas.ts FILE.cpuprofile');
  const areas = profileAreas(file);
  const lines = (shares: AreaShare[]) =>
    shares.map((share) => `${share.pct.toFixed(1).padStart(5)}%  ${share.area}`).join('\n');
  console.log(`Busy ${areas.busyMs.toFixed(0)} ms.\n\nBy area, self:\n${lines(areas.self)}`);
  console.log(`\nBy area, inclusive:\n${lines(areas.inclusive)}`);
  console.log(
    `\nFunctions by self time:\n${areas.functions.map((fn) => `${fn.pct.toFixed(1).padStart(5)}%  ${fn.name}  [${fn.area}]`).join('\n')}`,
  );
}
