import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { createTestDatabase, postgresUnavailable } from '../helpers/postgres-database.ts';
import { BatonProcess, makeWorkspace, REPO_ROOT } from './baton-process.ts';

/**
 * Tool workers as real processes (docs/tool-workers.md), under chaos: 200 conversations pause on
 * `check_stock`, a tool marked `"executor": "worker"`; three worker processes built on the SDK
 * (`baton.workers.run`, test/reliability/worker-process.ts) serve it with 5-second leases, while
 * every few hundred milliseconds one of them is SIGKILLed and restarted, and one is frozen
 * (SIGSTOP) past its leases and then let go on. Each handler applies a side effect before it
 * returns: a line `callId leaseToken pid` in an effects file.
 *
 * At the end every call has exactly one result, from a live lease: its ledger row is completed by a
 * worker (never by a deadline), its thread holds one tool result for it and the model's answer, and
 * the accepted result's lease token appears exactly once among the effects. The other effects come
 * from leases that lost (a worker killed after its effect, or frozen until its lease lapsed, whose
 * late result Baton refused): there are never more of them than the call's lapsed attempts.
 *
 * Once on one `baton serve` (SQLite), once on two replicas on one PostgreSQL database, with each
 * worker pointed at one of them and the conversations started on both.
 */

const THREADS = 200;
const WORKERS = 3;
const LEASE_SECONDS = 5;
/** High enough that the lapses the kills cause never exhaust a call (each lapse is an attempt). */
const MAX_ATTEMPTS = 20;
const CONCURRENCY = 4;
const SEND_PARALLELISM = 16;
/** Simulated work of a handler, before its effect, and the pause after it (see worker-process.ts). */
const WORK_MS = '150-450';
const AFTER_EFFECT_MS = 40;
const KILL_EVERY_MS = { min: 200, max: 600 };
/** The kills stop once every call is resolved, or after this long. */
const CHAOS_CAP_MS = 20_000;
/** After the chaos, every call resolved and every conversation idle within this long. */
const SETTLE_MS = 60_000;
const TOOL = 'check_stock';
const AGENT = 'warehouse-desk';

const postgresReason = await postgresUnavailable();

/** Ask the worker tool on a stock question; say what came back once its result arrives. */
const WAREHOUSE_PROGRAM = {
  rules: [
    { when: { user: 'stock' }, call: { tool: TOOL, arguments: { sku: '{{user}}' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: TOOL }, say: 'Stock: {{result}}' },
    { say: 'ok' },
  ],
};

function writeConfig(configFile: string): void {
  writeFileSync(
    configFile,
    stringifyYaml({
      // Lapsed leases are noticed by the sweeps: often, so a lapse costs about its lease.
      engine: { sweep_interval_ms: 250 },
      // The 200 conversations, the fleet's claims and heartbeats and the test's polling all come
      // from one app, past its default request rate; the test is not about rate limits.
      limits: {
        requests_per_minute_per_app: 1_000_000,
        requests_per_minute_total: 1_000_000,
        turns_per_app: 10_000,
        turns_total: 10_000,
      },
      scripted: { warehouse: WAREHOUSE_PROGRAM },
      agents: [
        {
          name: AGENT,
          model: 'scripted:warehouse',
          instructions: 'Answer stock questions with the check_stock tool.',
          tools: [
            {
              name: TOOL,
              description: 'How many of an item the warehouse holds; answered by the warehouse workers.',
              parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
              executor: 'worker',
              max_attempts: MAX_ATTEMPTS,
            },
          ],
        },
      ],
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One worker process (worker-process.ts); `kill`, `freeze`/`thaw` and `stop` are the chaos's levers. */
class WorkerProcess {
  private stderr = '';
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly child: ChildProcess,
    readonly label: string,
  ) {
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString('utf8')).slice(-50_000)));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  static async start(options: { url: string; apiKey: string; effectsFile: string; label: string }) {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      WORKER_BATON_URL: options.url,
      WORKER_API_KEY: options.apiKey,
      WORKER_EFFECTS_FILE: options.effectsFile,
      WORKER_LABEL: options.label,
      WORKER_CONCURRENCY: String(CONCURRENCY),
      WORKER_LEASE_SECONDS: String(LEASE_SECONDS),
      WORKER_WORK_MS: WORK_MS,
      WORKER_AFTER_EFFECT_MS: String(AFTER_EFFECT_MS),
    };
    // Vitest sets these for its own workers; the worker runs as a plain `node` process would.
    delete env.NODE_OPTIONS;
    delete env.VITEST;
    delete env.VITEST_POOL_ID;
    delete env.VITEST_WORKER_ID;
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/reliability/worker-process.ts'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const worker = new WorkerProcess(child, options.label);
    started.push(worker);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker ${options.label} not ready in 30 s:\n${worker.log}`)),
        30_000,
      );
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('ready\n')) {
          clearTimeout(timer);
          resolve();
        }
      });
      void worker.exited.then((exit) => {
        clearTimeout(timer);
        reject(
          new Error(`worker ${options.label} exited (${JSON.stringify(exit)}) before it was ready:\n${worker.log}`),
        );
      });
    });
    return worker;
  }

  get log(): string {
    return this.stderr;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The errors its fleet loop reported with this code (`lease_lost`, say). */
  errors(code: string): number {
    return this.stderr.split('\n').filter((line) => line.startsWith(`worker-error ${code} `)).length;
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await this.exited;
  }

  freeze(): void {
    this.child.kill('SIGSTOP');
  }

  thaw(): void {
    this.child.kill('SIGCONT');
  }

  /** As an operator stops a worker: SIGTERM, and the process ends on its own. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill('SIGTERM');
    const timeout = sleep(20_000).then(() => null);
    const exit = await Promise.race([this.exited, timeout]);
    if (exit === null) throw new Error(`worker ${this.label} did not stop within 20 s of SIGTERM:\n${this.log}`);
    return exit;
  }
}

const started: WorkerProcess[] = [];
const batons: BatonProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((worker) => worker.kill()));
  await Promise.all(batons.splice(0).map((baton) => baton.kill()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface LedgerRow {
  id: string;
  name: string;
  state: string;
  thread_id: string;
  attempts: number;
  max_attempts: number;
  submitted_by: string | null;
  result: { content: string | Array<{ type: string; text?: string }>; is_error: boolean } | null;
}

interface Message {
  role: string;
  content: string | null | Array<{ type: string; tool_call_id?: string; synthetic?: boolean }>;
  tool_calls?: Array<{ id: string; name: string }>;
}

async function ok(
  response: Promise<{ status: number; body: any; text: string }>,
  what: string,
  status = 200,
): Promise<any> {
  const answer = await response;
  expect(answer.status, `${what}: ${answer.text}`).toBe(status);
  return answer.body;
}

/** Runs `task` over `items`, at most `limit` at once. */
async function inParallel<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

async function ledger(baton: BatonProcess): Promise<LedgerRow[]> {
  const page = await ok(baton.request('GET', `/v1/tool-calls?agent=${AGENT}&limit=1000`), 'the ledger');
  return page.data as LedgerRow[];
}

async function pendingCalls(baton: BatonProcess): Promise<number> {
  const page = await ok(baton.request('GET', `/v1/tool-calls?agent=${AGENT}&state=pending&limit=1000`), 'pending');
  return (page.data as unknown[]).length;
}

function resultText(row: LedgerRow): string {
  const content = row.result?.content ?? '';
  return typeof content === 'string' ? content : content.map((block) => block.text ?? '').join('');
}

/**
 * The whole check on `replicas` (one, or several on one database): conversations paused, the
 * fleet under chaos, then the invariants; one log line says what the chaos did.
 */
async function serveUnderChaos(replicas: BatonProcess[], dir: string, name: string): Promise<void> {
  const began = Date.now();
  const [first] = replicas;
  if (!first) throw new Error('no replica');
  const key = await ok(
    first.request('POST', '/v1/api-keys', { name: 'warehouse-workers', role: 'member', tools: [TOOL] }),
    'a worker key',
    201,
  );
  const workerKey = key.key as string;

  // 200 conversations, started on the replicas in turn, each paused on one worker call.
  const callOfThread = new Map<string, string>();
  await inParallel(
    Array.from({ length: THREADS }, (_, index) => index),
    SEND_PARALLELISM,
    async (index) => {
      const baton = replicas[index % replicas.length]!;
      const thread = await ok(baton.request('POST', '/v1/threads', { agent: AGENT }), 'a thread');
      const reply = await ok(
        baton.request('POST', `/v1/threads/${thread.id as string}/messages`, { content: `stock sku-${index}` }),
        'the question',
      );
      const choice = reply.choices?.[0];
      expect(choice?.finish_reason, JSON.stringify(reply)).toBe('tool_use');
      expect(choice.message.tool_calls).toHaveLength(1);
      expect(choice.message.tool_calls[0]).toMatchObject({ name: TOOL });
      callOfThread.set(thread.id as string, choice.message.tool_calls[0].id as string);
    },
  );
  const threadOfCall = new Map([...callOfThread].map(([thread, call]) => [call, thread]));
  expect(threadOfCall.size).toBe(THREADS);
  const paused = Date.now();

  // The fleet: worker i talks to replica i mod n.
  const effectsFile = join(dir, 'effects.log');
  writeFileSync(effectsFile, '');
  let generation = 0;
  const startWorker = (slot: number) =>
    WorkerProcess.start({
      url: replicas[slot % replicas.length]!.url,
      apiKey: workerKey,
      effectsFile,
      label: `warehouse-${slot}-${generation++}`,
    });
  const slots = (await Promise.all(Array.from({ length: WORKERS }, (_, slot) => startWorker(slot)))).map((worker) => ({
    worker,
    up: true,
    frozen: false,
    restart: Promise.resolve(),
  }));

  /** What a failure message needs: the calls still pending, with their leases, and what each process said. */
  const diagnosis = async () => {
    const pending = (await ledger(first)).filter((row) => row.state === 'pending');
    return [
      `${pending.length} pending: ${JSON.stringify(pending.slice(0, 5))}`,
      ...slots.map(
        (slot) => `worker ${slot.worker.label} (running: ${slot.worker.running}):\n${slot.worker.log.slice(-3_000)}`,
      ),
      ...replicas.map((baton, index) => `replica ${index}:\n${baton.log.slice(-5_000)}`),
    ].join('\n');
  };

  // Watches the ledger until no call is pending; a failed look ends the chaos and the test.
  let resolved = false;
  let watchError: unknown = null;
  const watch = (async () => {
    while (!resolved) {
      resolved = (await pendingCalls(first)) === 0;
      if (!resolved) await sleep(300);
    }
  })().catch((error: unknown) => {
    watchError = error;
    resolved = true;
  });

  // One worker frozen past its leases: they lapse, others take the calls over, and when it goes on,
  // its heartbeats and results meet `lease_lost` (its effects, if any, belong to leases that lost).
  let frozenWorker: WorkerProcess | null = null;
  const freeze = (async () => {
    await sleep(1_500);
    const slot = slots.find((candidate) => candidate.up);
    if (!slot || resolved) return;
    slot.frozen = true;
    frozenWorker = slot.worker;
    slot.worker.freeze();
    try {
      await sleep((LEASE_SECONDS + 2) * 1_000);
    } finally {
      slot.worker.thaw();
      slot.frozen = false;
    }
  })();

  // A SIGKILL every few hundred milliseconds, round robin over the workers that are up and not
  // frozen; each victim restarts in the background (same replica) and is not killed again before
  // it is up.
  let kills = 0;
  const chaosEnd = Date.now() + CHAOS_CAP_MS;
  let cursor = 0;
  while (!resolved && Date.now() < chaosEnd) {
    await sleep(KILL_EVERY_MS.min + Math.random() * (KILL_EVERY_MS.max - KILL_EVERY_MS.min));
    const order = Array.from({ length: WORKERS }, (_, step) => (cursor + step) % WORKERS);
    const victim = order.find((index) => slots[index]!.up && !slots[index]!.frozen);
    if (victim === undefined) continue;
    cursor = victim + 1;
    const slot = slots[victim]!;
    slot.up = false;
    await slot.worker.kill();
    kills += 1;
    slot.restart = startWorker(victim).then((worker) => {
      slot.worker = worker;
      slot.up = true;
    });
  }
  await Promise.all([freeze, ...slots.map((slot) => slot.restart)]);
  const chaosMs = Date.now() - paused;

  // The fleet, whole again, finishes the rest.
  const settleBy = Date.now() + SETTLE_MS;
  while (!resolved) {
    if (Date.now() > settleBy)
      throw new Error(`calls still pending ${SETTLE_MS} ms after the chaos:\n${await diagnosis()}`);
    await sleep(200);
  }
  await watch;
  if (watchError !== null) throw watchError;
  const statusOf = async (threadId: string) =>
    (await ok(replicas[0]!.request('GET', `/v1/threads/${threadId}`), 'a thread')).status as string;
  for (const threadId of callOfThread.keys()) {
    for (;;) {
      const status = await statusOf(threadId);
      if (status !== 'pending' && status !== 'running') break;
      if (Date.now() > settleBy)
        throw new Error(`thread ${threadId} still ${status} after the chaos:\n${await diagnosis()}`);
      await sleep(100);
    }
  }
  // Stopped as an operator would: each exits on its own, having released what it had not started.
  const frozenLeaseLost = (frozenWorker as WorkerProcess | null)?.errors('lease_lost') ?? 0;
  for (const slot of slots) {
    const exit = await slot.worker.stop();
    expect(exit, `${slot.worker.label} on SIGTERM:\n${slot.worker.log}`).toEqual({ code: 0, signal: null });
  }

  // Every call: completed once, by a worker, within its attempts.
  const rows = await ledger(first);
  expect(rows).toHaveLength(THREADS);
  const acceptedLease = new Map<string, string>();
  let lapses = 0;
  for (const row of rows) {
    expect(threadOfCall.has(row.id), `call ${row.id} belongs to a conversation of the test`).toBe(true);
    expect(row, `call ${row.id}`).toMatchObject({ name: TOOL, state: 'completed', max_attempts: MAX_ATTEMPTS });
    expect(row.result?.is_error, `call ${row.id}: ${resultText(row)}`).toBe(false);
    // Resolved by a worker's result: not by a deadline, exhausted attempts, recovery or a fake.
    expect(String(row.submitted_by), `call ${row.id}`).not.toMatch(/^baton:/);
    expect(row.attempts, `attempts of ${row.id}`).toBeGreaterThanOrEqual(1);
    expect(row.attempts, `attempts of ${row.id}`).toBeLessThan(MAX_ATTEMPTS);
    lapses += row.attempts - 1;
    const result = JSON.parse(resultText(row)) as { lease?: unknown; sku?: unknown };
    expect(typeof result.lease, `the result of ${row.id} names its lease: ${resultText(row)}`).toBe('string');
    acceptedLease.set(row.id, result.lease as string);
  }

  // Every conversation: idle, one tool result for its call, and the model's answer to it.
  await inParallel([...callOfThread], SEND_PARALLELISM, async ([threadId, callId]) => {
    const thread = await ok(first.request('GET', `/v1/threads/${threadId}`), 'a thread');
    expect(thread.status, `thread ${threadId}`).toBe('idle');
    expect(thread.pending_tool_calls).toEqual([]);
    const page = await ok(first.request('GET', `/v1/threads/${threadId}/messages`), 'messages');
    const messages = page.data as Message[];
    const outputs = messages.flatMap((message) =>
      Array.isArray(message.content)
        ? message.content.filter((block) => block.type === 'tool_result' && block.tool_call_id === callId)
        : [],
    );
    expect(outputs, `tool results of ${callId} in thread ${threadId}`).toHaveLength(1);
    expect(outputs[0]!.synthetic ?? false, `the result of ${callId} came from a worker`).toBe(false);
    const last = messages[messages.length - 1];
    expect(last?.role, `the last message of ${threadId}`).toBe('assistant');
    expect(String(last?.content)).toMatch(/^Stock: /);
    expect(String(last?.content)).toContain(acceptedLease.get(callId)!);
  });

  // Every effect: the accepted lease applied it exactly once; any other lease of the call lost.
  const effects = readFileSync(effectsFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [callId, lease, pid, ...rest] = line.split(' ');
      expect(rest, `effect line '${line}' is whole`).toEqual([]);
      expect(pid, `effect line '${line}' is whole`).toMatch(/^\d+$/);
      return { callId: callId!, lease: lease! };
    });
  const lost: Array<{ callId: string; lease: string }> = [];
  for (const [callId, accepted] of acceptedLease) {
    const mine = effects.filter((effect) => effect.callId === callId);
    expect(
      mine.filter((effect) => effect.lease === accepted),
      `effects of ${callId} under its accepted lease`,
    ).toHaveLength(1);
    const leases = new Set(mine.map((effect) => effect.lease));
    // A lease runs its handler once, and each lease is one claim, so one attempt.
    expect(leases.size, `effects of ${callId}: one per lease`).toBe(mine.length);
    const attempts = rows.find((row) => row.id === callId)!.attempts;
    expect(
      leases.size,
      `leases of ${callId} that applied an effect, within its ${attempts} attempts`,
    ).toBeLessThanOrEqual(attempts);
    lost.push(...mine.filter((effect) => effect.lease !== accepted));
  }
  expect(
    effects.filter((effect) => !acceptedLease.has(effect.callId)),
    'effects of unknown calls',
  ).toEqual([]);

  // Fencing, from the outside: a result sent now under any lease that lost is refused, and the
  // accepted result stays. (The SDK does not send those itself: it knows when its lease is gone.)
  for (const effect of lost) {
    const late = await first.request(
      'POST',
      `/v1/tool-calls/${effect.callId}/result`,
      { content: '{"late": true}', lease_token: effect.lease },
      { authorization: `Bearer ${workerKey}` },
    );
    expect(late.status, `a late result of ${effect.callId}: ${late.text}`).toBe(409);
    expect(String(late.body?.error?.code)).toMatch(/^(lease_lost|tool_call_already_resolved)$/);
  }
  if (lost.length > 0) {
    const after = await ledger(first);
    for (const row of after) expect(resultText(row), `the result of ${row.id}`).toContain(acceptedLease.get(row.id)!);
  }

  // The chaos reached the leases, or the test proved nothing.
  expect(kills, 'kills').toBeGreaterThanOrEqual(5);
  expect(lapses, 'leases that lapsed').toBeGreaterThanOrEqual(1);
  console.log(
    `tool workers on ${name}: ${THREADS} calls in ${((Date.now() - began) / 1000).toFixed(1)} s ` +
      `(${(chaosMs / 1000).toFixed(1)} s of chaos); ${kills} kills and 1 freeze; ${lapses} leases lapsed ` +
      `(max ${Math.max(...rows.map((row) => row.attempts))} attempts on one call); ${effects.length} effects, ` +
      `${lost.length} of them from leases that lost (their late results refused); the frozen worker met lease_lost ${frozenLeaseLost} time(s)`,
  );
}

describe('tool workers as real processes, SIGKILLed and restarted every few hundred milliseconds', () => {
  it('gives every call exactly one result, from a live lease, on one baton serve (SQLite)', async () => {
    const workspace = makeWorkspace('baton-workers-');
    cleanups.push(() => workspace.remove());
    writeConfig(workspace.configFile);
    const baton = await BatonProcess.start({ dataDir: workspace.dataDir, configFile: workspace.configFile });
    batons.push(baton);
    await serveUnderChaos([baton], workspace.dir, 'SQLite');
  }, 150_000);

  // Without PostgreSQL the reason is printed (postgresUnavailable); CI sets BATON_REQUIRE_POSTGRES=1,
  // and then a missing server fails the file instead.
  it.skipIf(postgresReason !== null)(
    'gives every call exactly one result, from a live lease, on two replicas on PostgreSQL',
    async () => {
      const database = await createTestDatabase('baton_workers');
      cleanups.push(() => database.drop());
      const workspace = makeWorkspace('baton-workers-');
      cleanups.push(() => workspace.remove());
      writeConfig(workspace.configFile);
      const start = () =>
        BatonProcess.start({
          dataDir: workspace.dataDir,
          configFile: workspace.configFile,
          databaseUrl: database.url,
          timeoutMs: 30_000,
        });
      // The first replica migrates the database; the second joins it.
      batons.push(await start());
      batons.push(await start());
      await serveUnderChaos([...batons], workspace.dir, 'two PostgreSQL replicas');
    },
    150_000,
  );
});
