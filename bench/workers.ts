import { writeFileSync } from 'node:fs';
import { stringify as stringifyYaml } from 'yaml';
import { BatonProcess, makeWorkspace, PROCESS_ADMIN_KEY } from '../test/reliability/baton-process.ts';
import { HttpClient, runLoad, StopClient, type LoadResult } from './load.ts';
import { fmt, table } from './report.ts';

/**
 * The tool-workers phase of `npm run bench` (alone: `BENCH_ONLY=workers`): how many calls a
 * fleet of tool workers (docs/tool-workers.md) gets through per second, beside the direct Threads
 * round trip, on one real `baton serve` (SQLite, started as `npm start` does).
 *
 * - **direct**: the Threads round trip on a fresh thread: a message (the model calls the client
 *   tool `check_stock_direct`, the turn pauses) → `tool_use` → the result as a `tool_result`
 *   message → the model's answer, `stop`.
 * - **workers**: a closed loop per worker: `POST /v1/tool-calls/claim` (`max_calls` 1, no
 *   long-poll) → `POST /v1/tool-calls/{id}/result` with the lease token. The conversations were
 *   paused on `check_stock` (`"executor": "worker"`) beforehand, in bulk and outside the clock, so
 *   the loop measures claim + submit and not the model's first step. Each accepted result resumes
 *   its turn in the background (the model's answer), on the same server: that work is Baton's CPU
 *   in the window too, and the phase waits for it to drain before the next measurement.
 *
 * Both loops use the bench's node:http client, so the transport is the same. At 1, 4 and 16
 * clients (workers), direct then workers at each, after a warm-up each; the figure is the
 * workers' round trips per second over the direct ones' at the same count.
 */

export const WORKER_COUNTS = [1, 4, 16] as const;
const WORKER_TOOL = 'check_stock';
const DIRECT_TOOL = 'check_stock_direct';
const RESULT = '{"in_stock": 4}';
/** Parallel requests while the pools of threads and pending calls are made. */
const FILL_PARALLELISM = 8;

export interface WorkersOptions {
  warmupMs: number;
  durationMs: number;
  /** At least this many calls pending before each workers measurement (2,000; fewer in a quick run). */
  minPendingCalls: number;
  log(message: string): void;
}

export interface WorkersRow extends LoadResult {
  variant: 'direct' | 'workers';
  /** Threads (direct) or pending calls (workers) made ready before the run. */
  poolSize: number;
  poolExhausted: boolean;
  /** Baton's CPU per round trip, ms. */
  serverCpuMsPerRoundTrip: number | null;
  /** Workers only: from the end of the window until the last resumed turn answered, ms. */
  drainMs: number | null;
}

export interface WorkersResult {
  rows: WorkersRow[];
  /** Per worker count: workers' claim → submit round trips per second over the direct round trips'. */
  workersToDirect: Record<number, number>;
  /** Seconds spent making the pools (outside the measurement). */
  fillSeconds: number;
}

function writeConfig(configFile: string): void {
  const program = (tool: string) => ({
    rules: [
      { when: { user: 'stock' }, call: { tool, arguments: { sku: '{{user}}' } } },
      { when: { tool_result: true }, say: 'Stock: {{result}}' },
      { say: 'ok' },
    ],
  });
  const tool = (name: string) => ({
    name,
    description: 'How many of an item the warehouse holds.',
    parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  });
  writeFileSync(
    configFile,
    stringifyYaml({
      // One app drives the whole load: the per-app and total caps are set to their maximum, as
      // the other phases' server does.
      limits: {
        requests_per_minute_per_app: 1_000_000,
        requests_per_minute_total: 1_000_000,
        turns_per_app: 10_000,
        turns_total: 10_000,
      },
      scripted: { direct: program(DIRECT_TOOL), workers: program(WORKER_TOOL) },
      agents: [
        { name: 'stock-direct', model: 'scripted:direct', tools: [tool(DIRECT_TOOL)] },
        { name: 'stock-workers', model: 'scripted:workers', tools: [{ ...tool(WORKER_TOOL), executor: 'worker' }] },
      ],
    }),
  );
}

/** Runs `task` `count` times, at most `limit` at once. */
async function repeat(count: number, limit: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

function expectStatus(answer: { status: number; text: string }, what: string): unknown {
  if (answer.status !== 200) throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  return JSON.parse(answer.text);
}

async function newThread(http: HttpClient, agent: string): Promise<string> {
  const body = expectStatus(await http.post('/v1/threads', JSON.stringify({ agent })), 'a new thread') as {
    id: string;
  };
  return body.id;
}

/** A message that pauses its turn on one call of `tool`; the call's id. */
async function pause(http: HttpClient, threadId: string, tool: string): Promise<string> {
  const answer = await http.post(`/v1/threads/${threadId}/messages`, JSON.stringify({ content: 'stock sku-1' }));
  const reply = expectStatus(answer, 'the question') as {
    choices?: Array<{ finish_reason?: string; message?: { tool_calls?: Array<{ id: string; name: string }> } }>;
  };
  const choice = reply.choices?.[0];
  const call = choice?.message?.tool_calls?.[0];
  if (choice?.finish_reason !== 'tool_use' || call?.name !== tool)
    throw new Error(`expected a tool_use of ${tool}: ${answer.text.slice(0, 300)}`);
  return call.id;
}

/** The direct round trip on a fresh thread: pause on the client tool, answer it, get the answer. */
async function directRoundTrip(http: HttpClient, threadId: string): Promise<void> {
  const callId = await pause(http, threadId, DIRECT_TOOL);
  const answer = await http.post(
    `/v1/threads/${threadId}/messages`,
    JSON.stringify({ role: 'user', content: [{ type: 'tool_result', tool_call_id: callId, content: RESULT }] }),
  );
  const reply = expectStatus(answer, 'the tool_result') as { choices?: Array<{ finish_reason?: string }> };
  if (reply.choices?.[0]?.finish_reason !== 'stop') throw new Error(`expected stop: ${answer.text.slice(0, 300)}`);
}

function cpuMs(result: LoadResult): number | null {
  return result.serverCpuCores === null || result.roundTripsPerSecond === 0
    ? null
    : (result.serverCpuCores * 1000) / result.roundTripsPerSecond;
}

export async function measureWorkers(options: WorkersOptions): Promise<WorkersResult> {
  const { warmupMs, durationMs, log } = options;
  const workspace = makeWorkspace('baton-bench-workers-');
  writeConfig(workspace.configFile);
  const baton = await BatonProcess.start({
    dataDir: workspace.dataDir,
    configFile: workspace.configFile,
    timeoutMs: 60_000,
  });
  const http = new HttpClient(baton.url, { authorization: `Bearer ${PROCESS_ADMIN_KEY}` });
  const rows: WorkersRow[] = [];
  let fillMs = 0;
  /** Calls paused on the worker tool and not claimed yet (this process makes and claims them all). */
  let pending = 0;
  const windowSeconds = (warmupMs + durationMs) / 1000;
  try {
    let directBest = 0;
    let workersGuess = 0;
    for (const clients of WORKER_COUNTS) {
      // Fresh threads for the direct round trip: twice the best rate so far (more clients may go
      // faster), at least 300 a second. Empty threads are cheap to make; running out is not.
      const directPool = Math.ceil(Math.max(300, directBest * 2) * 1.2 * windowSeconds) + clients * 4;
      log(`workers phase: ${directPool} fresh threads for the direct round trip`);
      let filled = performance.now();
      const threads: string[] = [];
      await repeat(directPool, FILL_PARALLELISM, async () => {
        threads.push(await newThread(http, 'stock-direct'));
      });
      fillMs += performance.now() - filled;
      log(`workers phase: direct Threads round trip, ${clients} client(s)`);
      let next = 0;
      let directExhausted = false;
      const direct = await runLoad({
        clients,
        warmupMs,
        durationMs,
        http,
        serverPid: baton.child.pid,
        roundTrip: async () => {
          const threadId = threads[next++];
          if (threadId === undefined) {
            directExhausted = true;
            throw new StopClient();
          }
          await directRoundTrip(http, threadId);
        },
      });
      rows.push({
        ...direct,
        variant: 'direct',
        poolSize: directPool,
        poolExhausted: directExhausted,
        serverCpuMsPerRoundTrip: cpuMs(direct),
        drainMs: null,
      });
      directBest = Math.max(directBest, direct.roundTripsPerSecond);

      // Pending calls for the workers: at least the floor, and enough for the window at the rate
      // the last level (or a guess from the direct rate) suggests.
      workersGuess = Math.max(workersGuess, direct.roundTripsPerSecond * 2);
      const wanted = Math.max(options.minPendingCalls, Math.ceil(workersGuess * 1.3 * windowSeconds) + clients * 4);
      const toMake = Math.max(0, wanted - pending);
      log(`workers phase: pausing ${toMake} conversations on ${WORKER_TOOL} (${pending} already pending)`);
      filled = performance.now();
      await repeat(toMake, FILL_PARALLELISM, async () => {
        await pause(http, await newThread(http, 'stock-workers'), WORKER_TOOL);
        pending += 1;
      });
      fillMs += performance.now() - filled;

      log(`workers phase: claim → submit, ${clients} worker(s)`);
      const claims = Array.from({ length: clients }, (_, worker) =>
        JSON.stringify({
          tools: [WORKER_TOOL],
          max_calls: 1,
          lease_seconds: 60,
          wait_seconds: 0,
          worker: `bench-${worker}`,
        }),
      );
      // Held in an object: the loop's closure writes it, which narrowing of a plain `let` would miss.
      const last: { thread: string | null } = { thread: null };
      const poolAtStart = pending;
      let workersExhausted = false;
      const loop = await runLoad({
        clients,
        warmupMs,
        durationMs,
        http,
        serverPid: baton.child.pid,
        roundTrip: async (worker) => {
          const claimed = expectStatus(await http.post('/v1/tool-calls/claim', claims[worker]!), 'the claim') as {
            data: Array<{ id: string; thread_id: string; lease: { token: string } }>;
          };
          const call = claimed.data[0];
          if (call === undefined) {
            workersExhausted = true;
            throw new StopClient();
          }
          pending -= 1;
          expectStatus(
            await http.post(
              `/v1/tool-calls/${call.id}/result`,
              JSON.stringify({ content: RESULT, lease_token: call.lease.token }),
            ),
            'the result',
          );
          last.thread = call.thread_id;
        },
      });
      // The accepted results resume their turns in the background: wait until the last one has
      // answered, so the next measurement starts on a quiet server, and say how long that took.
      const windowEnded = performance.now();
      if (last.thread !== null) await idleWithAnswer(http, last.thread);
      rows.push({
        ...loop,
        variant: 'workers',
        poolSize: poolAtStart,
        poolExhausted: workersExhausted,
        serverCpuMsPerRoundTrip: cpuMs(loop),
        drainMs: last.thread === null ? null : performance.now() - windowEnded,
      });
      workersGuess = Math.max(workersGuess, loop.roundTripsPerSecond);
    }
  } finally {
    http.close();
    await baton.kill('SIGTERM');
    workspace.remove();
  }
  const rate = (variant: 'direct' | 'workers', clients: number) =>
    rows.find((row) => row.variant === variant && row.clients === clients)?.roundTripsPerSecond ?? NaN;
  return {
    rows,
    workersToDirect: Object.fromEntries(
      WORKER_COUNTS.map((clients) => [clients, rate('workers', clients) / rate('direct', clients)]),
    ),
    fillSeconds: fillMs / 1000,
  };
}

/** Waits until `threadId` is idle and its last message is the model's answer to the result. */
async function idleWithAnswer(http: HttpClient, threadId: string): Promise<void> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const thread = expectStatus(await http.get(`/v1/threads/${threadId}`), 'the thread') as { status: string };
    if (thread.status === 'idle') break;
    if (performance.now() > deadline) throw new Error(`thread ${threadId} still ${thread.status} after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const messages = expectStatus(await http.get(`/v1/threads/${threadId}/messages`), 'the messages') as {
    data: Array<{ role: string; content: unknown }>;
  };
  const last = messages.data[messages.data.length - 1];
  if (last?.role !== 'assistant' || !String(last.content).startsWith('Stock: '))
    throw new Error(`thread ${threadId} ended without the answer: ${JSON.stringify(last)}`);
}

export function workersReport(result: WorkersResult | null): string[] {
  if (!result) return [];
  const rows = result.rows.map((row) => [
    `${row.variant === 'direct' ? 'direct Threads round trip' : 'worker claim → submit'}${row.poolExhausted ? ' (pool ran out!)' : ''}`,
    String(row.clients),
    fmt(row.roundTripsPerSecond, 0),
    fmt(row.roundTrip.p50, 2),
    fmt(row.roundTrip.p99, 2),
    row.serverCpuCores === null ? 'n/a' : fmt(row.serverCpuCores, 2),
    row.serverCpuMsPerRoundTrip === null ? 'n/a' : fmt(row.serverCpuMsPerRoundTrip, 2),
    row.drainMs === null ? '' : fmt(row.drainMs, 0),
    String(row.errors),
  ]);
  return [
    '',
    'Tool workers: claim (max_calls 1) → submit with the lease token, per worker in a closed loop, beside the ' +
      'direct Threads round trip (message → tool_use → tool_result → answer) on fresh threads; one `baton serve` ' +
      `(SQLite), pools made beforehand (${fmt(result.fillSeconds, 0)} s)`,
    table(
      ['round trip', 'clients', 'rt/s', 'rt p50 ms', 'rt p99 ms', 'server CPU', 'CPU ms/rt', 'drain ms', 'errors'],
      rows,
    ),
    `  workers / direct (rt/s): ${Object.entries(result.workersToDirect)
      .map(([clients, ratio]) => `${fmt(ratio, 2)} at ${clients}`)
      .join(', ')}; drain: from the end of the window until the last resumed turn answered`,
    ...result.rows
      .filter((row) => row.firstError !== null)
      .map((row) => `  first error (${row.variant}, ${row.clients}): ${row.firstError}`),
  ];
}
