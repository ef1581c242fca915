import { startServer } from './child-server.ts';
import { HttpClient, percentiles, type Percentiles } from './load.ts';
import { fmt, table } from './report.ts';
import { batonRoundTrip, createThreadsOverHttp } from './round-trips.ts';
import { AUTH, processCpuSeconds } from './sdk-runner-round-trips.ts';

/**
 * The retention phase of `npm run bench` (alone: `BENCH_ONLY=retention`), issue 21: how long a
 * retention run over 100,000 idle conversations takes, and what it costs the round trips of 10
 * clients while it runs (target: they lose at most 10 %).
 *
 * 1. One Baton child (bench/servers/baton-background-server.ts, SQLite file) gets the app policy
 *    `retention: {conversations_after_days: 30}` through the CES App (`PATCH …/apps/default?update_mask=retention`).
 * 2. The child seeds, straight in SQLite, 100,000 idle conversations last changed 31 to 90 days
 *    ago, each a copy of one full turn built through the engine (the user's message, the paused
 *    call, its result, the answer: a conversation, a turn, its items and a resolved ledger entry),
 *    and 1,000 more last changed 1 to 25 days ago, which the policy keeps. Each copy has its own
 *    time, as real data would.
 * 3. 10 clients run the round trip (one thread per client, made over HTTP: the policy keeps them)
 *    in a closed loop: a warm-up, then a **before** window; the retention run starts (over IPC:
 *    `engine.applyRetention()`, what the sweeper's leader runs every 15 minutes), and the clients
 *    go on for the **during** window, or until the run ends if it ends first. Then the clients stop
 *    and the run finishes on an idle server (under load it takes only a share of the server, see
 *    src/engine/lifecycle/retention-pacer.ts: beside 10 busy clients 100,000 conversations would take over an hour).
 *    When it has ended, the clients run an **after** window, after a warm-up of their own. Round
 *    trips count in the window in which they complete.
 * 4. The child then checks which conversations went: exactly the 100,000 seeded old ones, and no
 *    row of theirs left behind.
 */

export const RETENTION_TARGET = 0.9;
const POLICY_DAYS = 30;
const APP = 'projects/default/locations/global/apps/default';

export interface RetentionOptions {
  /** Old idle conversations seeded (100,000). */
  conversations: number;
  /** Recent idle conversations seeded, which the run keeps. */
  recent: number;
  clients: number;
  warmupMs: number;
  /** The before and after windows. */
  windowMs: number;
  /** How long the clients run beside the retention run (at most: the run may end first). */
  duringMs: number;
  /** The run's `conversationBatch` (conversations listed per batch; the engine's default when undefined). */
  conversationBatch?: number;
  log(message: string): void;
}

export interface RetentionWindow {
  label: 'before' | 'during' | 'after';
  seconds: number;
  roundTrips: number;
  roundTripsPerSecond: number;
  roundTrip: Percentiles;
  serverCpuCores: number | null;
  /** How late the child's event loop ran its callbacks in the window (perf_hooks, 1 ms resolution), ms. */
  loopDelayMs: { p50: number; p99: number; max: number };
}

export interface RetentionVerification {
  before: number;
  after: number;
  removed: number;
  removedSeededOld: number;
  removedOther: number;
  seededOld: number;
  seededOldLeft: number;
  seededRecent: number;
  seededRecentLeft: number;
  orphans: Record<string, number>;
}

export interface RetentionResult {
  policyDays: number;
  clients: number;
  /** The run's `conversationBatch`, when the bench set one. */
  conversationBatch: number | null;
  seeded: {
    old: number;
    recent: number;
    seconds: number;
    /** Rows of each seeded conversation, by table. */
    rowsEach: Record<string, number>;
    conversationsInDatabase: number;
    databaseBytes: number;
  };
  run: {
    /** The run's own time (in the child), s. */
    seconds: number;
    conversations: number;
    skipped: number;
    rows: Record<string, number>;
    /** The part of the run beside the clients, and what it deleted then. */
    underLoad: { seconds: number; conversations: number; perSecond: number };
    /** The rest, on an idle server. */
    idle: { seconds: number; conversations: number; perSecond: number };
    /** All of them at the under-load rate, s. */
    estimatedSecondsUnderLoad: number;
  };
  windows: RetentionWindow[];
  /** Round trips per second during the run over before it (target ≥ 0.9), and over after it. */
  ratioToBefore: number;
  ratioToAfter: number;
  p50RatioToBefore: number;
  p99RatioToBefore: number;
  errors: number;
  firstError: string | null;
  verification: RetentionVerification;
  /** Exactly the seeded old conversations went, nothing of theirs is left, and the rest stayed. */
  exact: boolean;
  met: boolean;
}

interface RunAnswer {
  seconds: number;
  run: { apps: Array<{ conversations: number; skipped: number; rows: Record<string, number> }> };
}

interface Mark {
  at: number;
  cpu: number | null;
  loopDelay: { p50: number; p99: number; max: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Closed loops of the round trip, one per thread, until stopped; each round trip noted with the time it completed. */
class Clients {
  readonly samples: Array<{ end: number; ms: number }> = [];
  errors = 0;
  firstError: string | null = null;
  private stopping = false;
  private loops: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly http: HttpClient,
    private readonly threads: readonly string[],
  ) {}

  async start(): Promise<void> {
    await Promise.all(this.threads.map(() => this.http.get('/healthz')));
    this.stopping = false;
    this.loops = Promise.all(this.threads.map((thread) => this.loop(thread)));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.loops;
  }

  private async loop(thread: string): Promise<void> {
    while (!this.stopping) {
      const began = performance.now();
      try {
        await batonRoundTrip(this.http, thread);
      } catch (error) {
        this.errors += 1;
        this.firstError ??= error instanceof Error ? error.message : String(error);
        if (this.errors > 100) throw new Error(`too many errors; first: ${this.firstError}`, { cause: error });
        continue;
      }
      const end = performance.now();
      this.samples.push({ end, ms: end - began });
    }
  }

  window(label: RetentionWindow['label'], from: Mark, to: Mark): RetentionWindow {
    const inside = this.samples.filter((sample) => sample.end >= from.at && sample.end < to.at).map((s) => s.ms);
    const seconds = (to.at - from.at) / 1000;
    return {
      label,
      seconds,
      roundTrips: inside.length,
      roundTripsPerSecond: inside.length / seconds,
      roundTrip: percentiles(inside),
      serverCpuCores: from.cpu === null || to.cpu === null ? null : (to.cpu - from.cpu) / seconds,
      // The delay recorded up to a mark is that of the window ending there.
      loopDelayMs: to.loopDelay,
    };
  }
}

export async function measureRetention(options: RetentionOptions): Promise<RetentionResult> {
  const { log } = options;
  const child = await startServer('baton-background-server.ts');
  const http = new HttpClient(child.url, { authorization: AUTH });
  try {
    const patched = await fetch(`${child.url}/v1/${APP}?update_mask=retention`, {
      method: 'PATCH',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ retention: { conversations_after_days: POLICY_DAYS } }),
    });
    if (patched.status !== 200) throw new Error(`retention policy answered ${patched.status}: ${await patched.text()}`);
    log(
      `retention: seeding ${options.conversations.toLocaleString('en-US')} idle conversations 31-90 days old and ` +
        `${options.recent.toLocaleString('en-US')} 1-25 days old`,
    );
    const seeded = await child.call<{
      seconds: number;
      rowsEach: Record<string, number>;
      conversations: number;
      databaseBytes: number;
    }>('seed-idle', {
      old: options.conversations,
      recent: options.recent,
      oldDays: [POLICY_DAYS + 1, 90],
      recentDays: [1, 25],
    });
    log(
      `retention: seeded in ${fmt(seeded.seconds, 1)} s; ${seeded.conversations.toLocaleString('en-US')} conversations`,
    );
    const clients = new Clients(http, await createThreadsOverHttp(http, options.clients));
    await child.call('snapshot');
    const mark = async (): Promise<Mark> => ({
      at: performance.now(),
      cpu: await processCpuSeconds(child.pid),
      loopDelay: await child.call<Mark['loopDelay']>('loop-delay', { reset: true }),
    });

    log(
      `retention: ${options.clients} clients, ${options.warmupMs / 1000} s warm-up, ${options.windowMs / 1000} s before the run`,
    );
    await clients.start();
    let before: RetentionWindow;
    let during: RetentionWindow;
    let running: Promise<RunAnswer>;
    let underLoad: { seconds: number; conversations: number };
    let ended = false;
    try {
      await sleep(options.warmupMs);
      const start = await mark();
      await sleep(options.windowMs);
      const runStart = await mark();
      const countAtStart = await child.call<number>('conversations');
      log(`retention: the run starts; the clients go on for ${options.duringMs / 1000} s at most`);
      running = child.call<RunAnswer>(
        'retention-run',
        options.conversationBatch === undefined ? {} : { conversationBatch: options.conversationBatch },
      );
      void running.then(
        () => (ended = true),
        () => (ended = true),
      );
      await Promise.race([running, sleep(options.duringMs)]);
      const duringEnd = await mark();
      underLoad = {
        seconds: (duringEnd.at - runStart.at) / 1000,
        conversations: countAtStart - (await child.call<number>('conversations')),
      };
      before = clients.window('before', start, runStart);
      during = clients.window('during', runStart, duringEnd);
    } finally {
      await clients.stop();
    }
    if (!ended) log('retention: the clients stopped; the run goes on alone');
    const answer = await running;
    log(`retention: the run took ${fmt(answer.seconds, 1)} s; clients again, for the after window`);
    await clients.start();
    let after: RetentionWindow;
    try {
      await sleep(options.warmupMs);
      const start = await mark();
      await sleep(options.windowMs);
      after = clients.window('after', start, await mark());
    } finally {
      await clients.stop();
    }

    const verification = await child.call<RetentionVerification>('retention-verify');
    const rows: Record<string, number> = {};
    for (const app of answer.run.apps)
      for (const [name, n] of Object.entries(app.rows)) rows[name] = (rows[name] ?? 0) + n;
    const conversations = answer.run.apps.reduce((sum, app) => sum + app.conversations, 0);
    const idleSeconds = Math.max(0, answer.seconds - underLoad.seconds);
    const idleConversations = conversations - underLoad.conversations;
    const underLoadRate = underLoad.conversations / underLoad.seconds;
    const ratioToBefore = during.roundTripsPerSecond / before.roundTripsPerSecond;
    const exact =
      verification.removed === verification.seededOld &&
      verification.removedSeededOld === verification.seededOld &&
      verification.removedOther === 0 &&
      verification.seededRecentLeft === verification.seededRecent &&
      Object.values(verification.orphans).every((n) => n === 0);
    return {
      policyDays: POLICY_DAYS,
      clients: options.clients,
      conversationBatch: options.conversationBatch ?? null,
      seeded: {
        old: options.conversations,
        recent: options.recent,
        seconds: seeded.seconds,
        rowsEach: seeded.rowsEach,
        conversationsInDatabase: seeded.conversations,
        databaseBytes: seeded.databaseBytes,
      },
      run: {
        seconds: answer.seconds,
        conversations,
        skipped: answer.run.apps.reduce((sum, app) => sum + app.skipped, 0),
        rows,
        underLoad: { ...underLoad, perSecond: underLoadRate },
        idle: {
          seconds: idleSeconds,
          conversations: idleConversations,
          perSecond: idleSeconds > 0 ? idleConversations / idleSeconds : NaN,
        },
        estimatedSecondsUnderLoad: conversations / underLoadRate,
      },
      windows: [before, during, after],
      ratioToBefore,
      ratioToAfter: during.roundTripsPerSecond / after.roundTripsPerSecond,
      p50RatioToBefore: during.roundTrip.p50 / before.roundTrip.p50,
      p99RatioToBefore: during.roundTrip.p99 / before.roundTrip.p99,
      errors: clients.errors,
      firstError: clients.firstError,
      verification,
      exact,
      met: ratioToBefore >= RETENTION_TARGET,
    };
  } finally {
    http.close();
    await child.stop();
  }
}

export function retentionReport(result: RetentionResult | null): string[] {
  if (!result) return [];
  const { seeded, run, verification: v } = result;
  const n = (value: number) => value.toLocaleString('en-US');
  const rowsEach = Object.entries(seeded.rowsEach)
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');
  return [
    '',
    `Retention: a run of conversations_after_days ${result.policyDays} over ${n(seeded.old)} idle conversations (each ` +
      `${rowsEach}; seeded in ${fmt(seeded.seconds, 1)} s beside ${n(seeded.recent)} recent ones the policy keeps; ` +
      `database ${fmt(seeded.databaseBytes / 1024 / 1024, 0)} MB), beside ${result.clients} clients' round trips`,
    table(
      [
        'window',
        'seconds',
        'rt',
        'rt/s',
        'rt p50 ms',
        'rt p99 ms',
        'server CPU',
        'loop delay p50 ms',
        'p99 ms',
        'max ms',
      ],
      result.windows.map((window) => [
        window.label,
        fmt(window.seconds, 1),
        String(window.roundTrips),
        fmt(window.roundTripsPerSecond, 0),
        fmt(window.roundTrip.p50, 2),
        fmt(window.roundTrip.p99, 2),
        window.serverCpuCores === null ? 'n/a' : fmt(window.serverCpuCores, 2),
        fmt(window.loopDelayMs.p50, 1),
        fmt(window.loopDelayMs.p99, 1),
        fmt(window.loopDelayMs.max, 0),
      ]),
    ),
    `  the run: ${fmt(run.seconds, 1)} s, ${n(run.conversations)} conversations deleted (${run.skipped} skipped` +
      `${result.conversationBatch === null ? '' : `, batches of ${result.conversationBatch}`}), rows ` +
      Object.entries(run.rows)
        .map(([name, count]) => `${name} ${n(count)}`)
        .join(', '),
    `  beside the clients: ${n(run.underLoad.conversations)} in ${fmt(run.underLoad.seconds, 1)} s ` +
      `(${fmt(run.underLoad.perSecond, 0)}/s: all of them would take ${fmt(run.estimatedSecondsUnderLoad / 60, 0)} min); ` +
      `alone: ${n(run.idle.conversations)} in ${fmt(run.idle.seconds, 1)} s (${fmt(run.idle.perSecond, 0)}/s)`,
    `  rt/s during / before ${fmt(result.ratioToBefore, 3)} (target ≥ ${RETENTION_TARGET}: ${result.met ? 'met' : 'MISSED'}), ` +
      `during / after ${fmt(result.ratioToAfter, 3)}; p50 during / before ${fmt(result.p50RatioToBefore, 2)}, ` +
      `p99 ${fmt(result.p99RatioToBefore, 2)}; ${result.errors} errors`,
    `  check: ${n(v.removedSeededOld)} of ${n(v.seededOld)} seeded old conversations removed, ${v.removedOther} others ` +
      `removed, ${n(v.seededRecentLeft)} of ${n(v.seededRecent)} recent ones kept, rows left without a conversation: ` +
      `${Object.entries(v.orphans)
        .map(([name, count]) => `${name} ${count}`)
        .join(', ')} → ${result.exact ? 'exact' : 'NOT EXACT'}`,
  ];
}
