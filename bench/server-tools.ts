import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_KEY } from '../test/helpers/test-baton.ts';
import { startServer, type ServerChild } from './child-server.ts';
import { HttpClient, percentiles, runLoad, type LoadResult, type Percentiles } from './load.ts';
import { summariseProfile } from './profile-summary.ts';
import { fmt, table } from './report.ts';
import type { SqlStat } from './sql-stats.ts';
import { PLAIN_TEXT, SERVER_TOOLS_PROGRAM_NAME, TOOL_TEXT } from './server-tools-program.ts';
import { priceApiDocument } from '../test/helpers/price-api-document.ts';

/**
 * The server-tools phase of `npm run bench`: what a tool call that Baton runs itself (an
 * OpenAPI tool on a loopback HTTP API) adds to a turn, beside a direct HTTP call to the same API,
 * all in one run so that the machine's noise hits every figure alike.
 *
 * Three processes: the API (bench/servers/price-api-server.ts), Baton (baton-server.ts with
 * BENCH_SERVER_TOOLS=1) and this one, which only generates load. Three round trips, each one
 * HTTP request, measured one after the other at each client level:
 *   (a) direct: `GET /prices/A-1` on the API;
 *   (b) plain turn: `POST /v1/threads/{id}/messages` "hello" → "ok" (one model step, no tool);
 *   (c) tool turn: the same POST with "price" → lookup_price runs on the server (HTTP to the
 *       API) → "Done: {…}" (two model steps).
 * Threads are created over HTTP before each window; each client moves to a new thread every
 * TURNS_PER_THREAD turns, so histories stay short. The tool's overhead is (c) − (b), reported
 * against (a).
 */

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const APP = 'projects/default/locations/global/apps/default';
const AGENT_ID = 'pricer';
const SKU = 'A-1';
/** Each client moves to a fresh thread after this many turns: histories stay at ≤ 40 items. */
const TURNS_PER_THREAD = 10;

export interface ServerToolsOptions {
  levels: number[];
  warmupMs: number;
  durationMs: number;
  /** Sequential samples of each round trip, interleaved in rotating order. */
  samples: number;
  /** Where to write CPU profiles of Baton during (b) and (c) at the highest level; null: none. */
  profileDir: string | null;
  log(message: string): void;
}

export interface TurnLoad extends LoadResult {
  threadsCreated: number;
  /** How many times the thread pool ran out and was reused from its start (histories then grow). */
  poolWraps: number;
}

export interface ServerToolsLevel {
  clients: number;
  direct: LoadResult;
  plainTurn: TurnLoad;
  toolTurn: TurnLoad;
  /** Requests the API received during (c) per tool turn completed (warm-up included): must be 1. */
  apiRequestsPerToolTurn: number;
  derived: Derived;
}

export interface Derived {
  /** Round-trip latency of (c) minus (b): what the server tool call adds to a turn. */
  overheadP50Ms: number;
  overheadP99Ms: number;
  /** That overhead over the latency of the direct call (a). */
  overheadToDirectP50: number;
  overheadToDirectP99: number;
  /** (c) over (b): latency and throughput. */
  toolToPlainP50: number;
  toolToPlainP99: number;
  toolToPlainThroughput: number;
  /** Server CPU per round trip, ms (CPU cores × 1000 / rt/s): the API's for (a), Baton's for (b) and (c). */
  cpuMsPerRoundTrip: { direct: number; plainTurn: number; toolTurn: number };
  /** Baton CPU of (c) minus (b), per turn, ms. */
  cpuOverheadMs: number;
}

export interface SequentialResult {
  samples: number;
  direct: Percentiles;
  plainTurn: Percentiles;
  toolTurn: Percentiles;
  overheadMs: number;
  overheadToDirect: number;
  toolToPlain: number;
}

export interface ServerToolsProfile {
  label: string;
  file: string;
  roundTripsPerSecond: number;
  /**
   * Baton CPU per turn in the profiled window (from /proc), ms. The profile's shares are
   * multiplied by it: its own busy time counts wall time, which includes time the process
   * waited for a core on this shared machine.
   */
  cpuMsPerTurn: number;
  byPackage: Array<{ name: string; msPerTurn: number }>;
  selfTop: Array<{ name: string; where: string; msPerTurn: number; selfPct: number }>;
  totalTop: Array<{ name: string; where: string; msPerTurn: number; totalPct: number }>;
  /** From a separate window with the SQL timing on (bench/sql-stats.ts). */
  sql: {
    statementsPerTurn: number;
    commitsPerTurn: number;
    sqliteMsPerTurn: number;
    statements: Array<{ sql: string; perTurn: number; meanUs: number }>;
  };
}

export interface ServerToolsResult {
  method: string;
  turnsPerThread: number;
  levels: ServerToolsLevel[];
  sequential: SequentialResult;
  profiles: ServerToolsProfile[];
  /** Busy Baton CPU per turn by package, tool turn minus plain turn (from the profiles), ms. */
  profileOverheadByPackage: Array<{ name: string; msPerTurn: number }>;
}

// ---- round trips ---------------------------------------------------------------------------------

/** Per client, the thread it is on; a new one from the pool every TURNS_PER_THREAD turns. */
class ThreadRotation {
  private next = 0;
  private readonly current: Array<{ id: string; turns: number } | undefined> = [];
  wraps = 0;

  constructor(private readonly pool: readonly string[]) {}

  thread(client: number): string {
    let slot = this.current[client];
    if (!slot || slot.turns >= TURNS_PER_THREAD) {
      if (this.next >= this.pool.length) {
        this.next = 0;
        this.wraps += 1;
      }
      slot = { id: this.pool[this.next++]!, turns: 0 };
      this.current[client] = slot;
    }
    slot.turns += 1;
    return slot.id;
  }
}

const PLAIN_BODY = JSON.stringify({ role: 'user', content: PLAIN_TEXT });
const TOOL_BODY = JSON.stringify({ role: 'user', content: TOOL_TEXT });

async function directCall(api: HttpClient): Promise<void> {
  const response = await api.get(`/prices/${SKU}`);
  if (response.status !== 200) throw new Error(`price API answered ${response.status}`);
  if (JSON.parse(response.text).price !== 42) throw new Error(`unexpected price: ${response.text}`);
}

async function turn(baton: HttpClient, threadId: string, withTool: boolean): Promise<void> {
  const response = await baton.post(`/v1/threads/${threadId}/messages`, withTool ? TOOL_BODY : PLAIN_BODY);
  if (response.status !== 200) throw new Error(`message answered ${response.status}: ${response.text.slice(0, 300)}`);
  const choice = JSON.parse(response.text).choices?.[0];
  const content = choice?.message?.content;
  const ok =
    choice?.finish_reason === 'stop' &&
    typeof content === 'string' &&
    (withTool ? content.startsWith('Done') && content.includes('42') : content === 'ok');
  if (!ok) throw new Error(`unexpected ${withTool ? 'tool' : 'plain'} turn: ${response.text.slice(0, 300)}`);
}

/** Threads of the benchmark agent, created over HTTP, 8 requests at a time. */
async function createThreads(baton: HttpClient, count: number): Promise<string[]> {
  const ids: string[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (started < count) {
        started += 1;
        const created = await baton.post('/v1/threads', JSON.stringify({ agent: AGENT_ID }));
        if (created.status !== 200) throw new Error(`create thread answered ${created.status}: ${created.text}`);
        ids.push(JSON.parse(created.text).id);
      }
    }),
  );
  return ids;
}

/** The OpenAPI Tool resource on the API, and the agent that uses it, in the default app, over HTTP. */
async function setUpAgent(baton: HttpClient, apiUrl: string): Promise<void> {
  const tool = await baton.post(
    `/v1/${APP}/tools?toolId=price`,
    JSON.stringify({ openApiTool: { openApiSchema: priceApiDocument(apiUrl) } }),
  );
  if (tool.status !== 200) throw new Error(`create tool answered ${tool.status}: ${tool.text}`);
  const agent = await baton.post(
    `/v1/${APP}/agents?agentId=${AGENT_ID}`,
    JSON.stringify({
      displayName: 'Pricer',
      instruction: 'x',
      modelSettings: { model: `scripted:${SERVER_TOOLS_PROGRAM_NAME}` },
      tools: [`${APP}/tools/price`],
    }),
  );
  if (agent.status !== 200) throw new Error(`create agent answered ${agent.status}: ${agent.text}`);
}

// ---- measurement ---------------------------------------------------------------------------------

const ratio = (a: number, b: number) => (b > 0 ? a / b : NaN);
const cpuMs = (result: LoadResult) =>
  result.serverCpuCores === null || result.roundTripsPerSecond === 0
    ? NaN
    : (result.serverCpuCores * 1000) / result.roundTripsPerSecond;

export function derive(direct: LoadResult, plain: LoadResult, tool: LoadResult): Derived {
  const overheadP50Ms = tool.roundTrip.p50 - plain.roundTrip.p50;
  const overheadP99Ms = tool.roundTrip.p99 - plain.roundTrip.p99;
  const cpu = { direct: cpuMs(direct), plainTurn: cpuMs(plain), toolTurn: cpuMs(tool) };
  return {
    overheadP50Ms,
    overheadP99Ms,
    overheadToDirectP50: ratio(overheadP50Ms, direct.roundTrip.p50),
    overheadToDirectP99: ratio(overheadP99Ms, direct.roundTrip.p99),
    toolToPlainP50: ratio(tool.roundTrip.p50, plain.roundTrip.p50),
    toolToPlainP99: ratio(tool.roundTrip.p99, plain.roundTrip.p99),
    toolToPlainThroughput: ratio(tool.roundTripsPerSecond, plain.roundTripsPerSecond),
    cpuMsPerRoundTrip: cpu,
    cpuOverheadMs: cpu.toolTurn - cpu.plainTurn,
  };
}

export async function measureServerTools(options: ServerToolsOptions): Promise<ServerToolsResult> {
  const { levels, warmupMs, durationMs, log } = options;
  const apiServer = await startServer('price-api-server.ts');
  let batonServer: ServerChild | null = null;
  const api = new HttpClient(apiServer.url);
  let baton: HttpClient | null = null;
  try {
    batonServer = await startServer('baton-server.ts', { BENCH_SERVER_TOOLS: '1' });
    baton = new HttpClient(batonServer.url, { authorization: `Bearer ${ADMIN_KEY}` });
    const http = baton;
    const batonPid = batonServer.pid;
    await setUpAgent(http, apiServer.url);
    // A first turn of each kind proves the setup before any window opens.
    const [check] = await createThreads(http, 1);
    await turn(http, check!, false);
    await turn(http, check!, true);

    const apiRequests = async () => (await apiServer.call<{ requests: number }>('stats')).requests;
    const windowSeconds = (warmupMs + durationMs) / 1000;
    /** Threads for one window: the expected turns (a generous rate guess) / TURNS_PER_THREAD. */
    const poolFor = async (clients: number, rateGuess: number) =>
      createThreads(http, Math.ceil((rateGuess * windowSeconds) / TURNS_PER_THREAD) + 4 * clients);
    const turnLoad = async (
      clients: number,
      withTool: boolean,
      rateGuess: number,
    ): Promise<TurnLoad & { completed: number }> => {
      const pool = await poolFor(clients, rateGuess);
      const rotation = new ThreadRotation(pool);
      let completed = 0;
      const result = await runLoad({
        clients,
        warmupMs,
        durationMs,
        http,
        serverPid: batonPid,
        roundTrip: async (client) => {
          await turn(http, rotation.thread(client), withTool);
          completed += 1;
        },
      });
      return { ...result, threadsCreated: pool.length, poolWraps: rotation.wraps, completed };
    };

    const results: ServerToolsLevel[] = [];
    let plainGuess = 600;
    let toolGuess = 400;
    for (const clients of levels) {
      log(`server tools, ${clients} client(s): (a) direct GET /prices/${SKU}`);
      const direct = await runLoad({
        clients,
        warmupMs,
        durationMs,
        http: api,
        roundTrip: () => directCall(api),
        serverPid: apiServer.pid,
      });
      log(`server tools, ${clients} client(s): (b) Baton turn without a tool`);
      const { completed: _plainCompleted, ...plainTurn } = await turnLoad(clients, false, plainGuess);
      log(`server tools, ${clients} client(s): (c) Baton turn with a server tool call`);
      const before = await apiRequests();
      const { completed, ...toolTurn } = await turnLoad(clients, true, toolGuess);
      const apiRequestsPerToolTurn = ((await apiRequests()) - before) / Math.max(1, completed);
      plainGuess = Math.max(plainGuess, plainTurn.roundTripsPerSecond * 2);
      toolGuess = Math.max(toolGuess, toolTurn.roundTripsPerSecond * 2);
      results.push({
        clients,
        direct,
        plainTurn,
        toolTurn,
        apiRequestsPerToolTurn,
        derived: derive(direct, plainTurn, toolTurn),
      });
    }

    // Sequential, one client, the three round trips interleaved in rotating order: drift and
    // noise hit all three alike. The medians are the per-call figures.
    log(`server tools: ${options.samples} sequential samples of each round trip, interleaved`);
    const rotation = new ThreadRotation(
      await createThreads(http, Math.ceil((options.samples * 2) / TURNS_PER_THREAD) + 2),
    );
    const steps = [
      () => directCall(api),
      () => turn(http, rotation.thread(0), false),
      () => turn(http, rotation.thread(0), true),
    ];
    for (let i = 0; i < 20; i++) for (const step of steps) await step();
    const times: [number[], number[], number[]] = [[], [], []];
    for (let i = 0; i < options.samples; i++) {
      for (let k = 0; k < 3; k++) {
        const which = (i + k) % 3;
        const began = performance.now();
        await steps[which]!();
        times[which]!.push(performance.now() - began);
      }
    }
    const [directStats, plainStats, toolStats] = times.map(percentiles) as [Percentiles, Percentiles, Percentiles];
    const sequential: SequentialResult = {
      samples: options.samples,
      direct: directStats,
      plainTurn: plainStats,
      toolTurn: toolStats,
      overheadMs: toolStats.p50 - plainStats.p50,
      overheadToDirect: ratio(toolStats.p50 - plainStats.p50, directStats.p50),
      toolToPlain: ratio(toolStats.p50, plainStats.p50),
    };

    const profiles: ServerToolsProfile[] = [];
    if (options.profileDir) {
      mkdirSync(options.profileDir, { recursive: true });
      const clients = Math.max(...levels);
      for (const [label, withTool] of [
        ['plain turn', false],
        ['tool turn', true],
      ] as const) {
        log(`server tools: profiling Baton, ${label}, ${clients} client(s)`);
        const rotation = new ThreadRotation(await poolFor(clients, withTool ? toolGuess : plainGuess));
        const roundTrip = (client: number) => turn(http, rotation.thread(client), withTool);
        await runLoad({ clients, warmupMs: 0, durationMs: warmupMs, http, roundTrip });
        const file = join(options.profileDir, `baton-server-tools-${label.replaceAll(' ', '-')}.cpuprofile`);
        await batonServer.call('profile-start');
        const load = await runLoad({ clients, warmupMs: 0, durationMs, http, roundTrip, serverPid: batonPid });
        await batonServer.call('profile-stop', { file });
        // SQL timing in a window of its own, so its wrappers do not show in the profile.
        await batonServer.call('sql-stats-start');
        const sqlLoad = await runLoad({
          clients,
          warmupMs: 0,
          durationMs: Math.min(durationMs, 4_000),
          http,
          roundTrip,
        });
        const stats = await batonServer.call<SqlStat[]>('sql-stats-stop');
        const sqlTurns = Math.max(1, sqlLoad.roundTrips);
        const summary = summariseProfile(file, 400);
        const cpuMsPerTurn = cpuMs(load);
        const perTurn = (pct: number) => (pct / 100) * cpuMsPerTurn;
        profiles.push({
          label,
          file: file.startsWith(REPO_ROOT) ? file.slice(REPO_ROOT.length) : file,
          roundTripsPerSecond: load.roundTripsPerSecond,
          cpuMsPerTurn,
          byPackage: summary.byPackage.map((entry) => ({ name: entry.name, msPerTurn: perTurn(entry.selfPct) })),
          selfTop: summary.selfTop.map((line) => ({
            name: line.name,
            where: line.where,
            selfPct: line.selfPct,
            msPerTurn: perTurn(line.selfPct),
          })),
          totalTop: summary.totalTop.map((line) => ({
            name: line.name,
            where: line.where,
            totalPct: line.totalPct,
            msPerTurn: perTurn(line.totalPct),
          })),
          sql: {
            statementsPerTurn: stats.reduce((sum, stat) => sum + stat.calls, 0) / sqlTurns,
            commitsPerTurn:
              stats
                .filter((stat) => stat.sql.trim().toLowerCase() === 'commit')
                .reduce((sum, stat) => sum + stat.calls, 0) / sqlTurns,
            sqliteMsPerTurn: stats.reduce((sum, stat) => sum + stat.totalMs, 0) / sqlTurns,
            statements: stats.map((stat) => ({ sql: stat.sql, perTurn: stat.calls / sqlTurns, meanUs: stat.meanUs })),
          },
        });
      }
    }
    const profileOverheadByPackage: Array<{ name: string; msPerTurn: number }> = [];
    if (profiles.length === 2) {
      const [plain, tool] = profiles as [ServerToolsProfile, ServerToolsProfile];
      const names = new Set([...plain.byPackage, ...tool.byPackage].map((entry) => entry.name));
      for (const name of names) {
        const of = (profile: ServerToolsProfile) =>
          profile.byPackage.find((entry) => entry.name === name)?.msPerTurn ?? 0;
        profileOverheadByPackage.push({ name, msPerTurn: of(tool) - of(plain) });
      }
      profileOverheadByPackage.sort((a, b) => b.msPerTurn - a.msPerTurn);
    }
    return {
      method:
        'closed loop per level: (a) direct GET to the API, (b) Baton thread turn without a tool (1 ' +
        'model step), (c) Baton thread turn with one server-executed OpenAPI tool call (2 model steps ' +
        '+ HTTP to the API); ' +
        `one request per round trip; a new thread every ${TURNS_PER_THREAD} turns per client. Overhead = (c) − (b), compared with (a).`,
      turnsPerThread: TURNS_PER_THREAD,
      levels: results,
      sequential,
      profiles: profiles.map((profile) => ({
        ...profile,
        selfTop: profile.selfTop.slice(0, 25),
        totalTop: profile.totalTop.slice(0, 40),
      })),
      profileOverheadByPackage,
    };
  } finally {
    api.close();
    baton?.close();
    await batonServer?.stop();
    await apiServer.stop();
  }
}

// ---- report --------------------------------------------------------------------------------------

export function serverToolsReport(result: ServerToolsResult): string[] {
  const row = (label: string, load: LoadResult, extra = '') => [
    label + extra,
    String(load.clients),
    fmt(load.roundTripsPerSecond, 0),
    fmt(load.roundTrip.p50, 2),
    fmt(load.roundTrip.p99, 2),
    load.serverCpuCores === null ? 'n/a' : fmt(load.serverCpuCores, 2),
    fmt(cpuMs(load), 2),
    fmt(load.loadCpuCores, 2),
    String(load.errors),
  ];
  const wrapped = (load: TurnLoad) => (load.poolWraps > 0 ? ' (threads reused!)' : '');
  const rows = result.levels.flatMap((level) => [
    row(`(a) direct GET /prices/${SKU}`, level.direct),
    row('(b) Baton turn, no tool', level.plainTurn, wrapped(level.plainTurn)),
    row('(c) Baton turn, server tool', level.toolTurn, wrapped(level.toolTurn)),
  ]);
  const derivedRows = result.levels.map((level) => {
    const d = level.derived;
    return [
      String(level.clients),
      `${fmt(d.overheadP50Ms, 2)} / ${fmt(d.overheadP99Ms, 2)}`,
      `${fmt(d.overheadToDirectP50, 1)} / ${fmt(d.overheadToDirectP99, 1)}`,
      `${fmt(d.toolToPlainP50, 2)} / ${fmt(d.toolToPlainP99, 2)}`,
      fmt(d.toolToPlainThroughput, 2),
      fmt(d.cpuOverheadMs, 2),
      fmt(level.apiRequestsPerToolTurn, 2),
    ];
  });
  const s = result.sequential;
  const lines = [
    '',
    `Server tool call through Baton beside a direct call to the same API (one request per round ` +
      `trip; a new thread every ${result.turnsPerThread} turns). Server CPU: the API's for (a), Baton's ` +
      `for (b) and (c).`,
    table(['measured', 'clients', 'rt/s', 'p50 ms', 'p99 ms', 'server CPU', 'CPU ms/rt', 'load CPU', 'errors'], rows),
    '',
    'Tool-call overhead = (c) − (b); its ratio to (a); (c) / (b):',
    table(
      [
        'clients',
        'overhead ms p50 / p99',
        'overhead / direct p50 / p99',
        'c/b latency p50 / p99',
        'c/b rt/s',
        'CPU overhead ms',
        'API calls per (c)',
      ],
      derivedRows,
    ),
    `Sequential, interleaved (${s.samples} of each, medians): direct ${fmt(s.direct.p50, 2)} ms, ` +
      `turn without tool ${fmt(s.plainTurn.p50, 2)} ms, turn with server tool ${fmt(s.toolTurn.p50, 2)} ` +
      `ms; overhead ${fmt(s.overheadMs, 2)} ms = ${fmt(s.overheadToDirect, 1)}× the direct call; ` +
      `c/b ${fmt(s.toolToPlain, 2)}`,
  ];
  if (result.profiles.length === 2) {
    const [plain, tool] = result.profiles as [ServerToolsProfile, ServerToolsProfile];
    lines.push(
      `CPU profile of Baton at ${result.levels.at(-1)?.clients ?? '?'} clients (${plain.file}, ${tool.file}): ` +
        `${fmt(plain.cpuMsPerTurn, 2)} ms of CPU per plain turn, ${fmt(tool.cpuMsPerTurn, 2)} per tool ` +
        `turn; the difference by package (ms of CPU per turn, profile shares × CPU):`,
      '  ' +
        result.profileOverheadByPackage
          .filter((entry) => Math.abs(entry.msPerTurn) >= 0.02)
          .map((entry) => `${entry.name} ${entry.msPerTurn >= 0 ? '+' : ''}${fmt(entry.msPerTurn, 2)}`)
          .join(', '),
      table(
        ['tool turn: top self time', 'ms/turn', 'self %', 'where'],
        tool.selfTop.slice(0, 10).map((line) => [line.name, fmt(line.msPerTurn, 3), fmt(line.selfPct), line.where]),
      ),
      `SQLite per turn (a separate 4 s window): plain ${fmt(plain.sql.statementsPerTurn, 1)} statements, ` +
        `${fmt(plain.sql.commitsPerTurn, 1)} commits, ${fmt(plain.sql.sqliteMsPerTurn, 2)} ms; tool ` +
        `${fmt(tool.sql.statementsPerTurn, 1)} statements, ${fmt(tool.sql.commitsPerTurn, 1)} commits, ` +
        `${fmt(tool.sql.sqliteMsPerTurn, 2)} ms. Statements the tool turn runs more often:`,
      table(
        ['statement', 'plain per turn', 'tool per turn', 'mean µs (tool)'],
        sqlDifference(plain, tool)
          .slice(0, 10)
          .map((line) => [
            line.sql.length > 90 ? `${line.sql.slice(0, 87)}...` : line.sql,
            fmt(line.plain, 1),
            fmt(line.tool, 1),
            fmt(line.meanUs, 0),
          ]),
      ),
    );
  }
  return lines;
}

/** Statements by how many more times per turn the tool turn runs them than the plain turn. */
function sqlDifference(
  plain: ServerToolsProfile,
  tool: ServerToolsProfile,
): Array<{ sql: string; plain: number; tool: number; meanUs: number }> {
  const texts = new Set([...plain.sql.statements, ...tool.sql.statements].map((stat) => stat.sql));
  return [...texts]
    .map((sql) => {
      const inTool = tool.sql.statements.find((stat) => stat.sql === sql);
      return {
        sql,
        plain: plain.sql.statements.find((stat) => stat.sql === sql)?.perTurn ?? 0,
        tool: inTool?.perTurn ?? 0,
        meanUs: inTool?.meanUs ?? NaN,
      };
    })
    .filter((line) => line.tool - line.plain >= 0.05)
    .sort((a, b) => b.tool - b.plain - (a.tool - a.plain));
}

export const SERVER_TOOLS_PROFILE_DIR = join(BENCH_DIR, '.tmp', 'profiles');
