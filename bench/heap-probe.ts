import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBaton } from '../src/server/start-baton.ts';
import { testConfig } from '../test/helpers/test-baton.ts';
import { createThread, sendSeed } from './engine-driver.ts';
import { ThreadCloner } from './sqlite-clone.ts';

/**
 * Heap cost of pending threads, in one process with --expose-gc:
 *   node --expose-gc --import tsx bench/heap-probe.ts [target=100000] [engineBudgetSeconds=60]
 *
 * 1. Creates pending threads through the engine (createConversation + sendMessage: the HTTP face's
 *    code minus Fastify), forcing GC and reading heapUsed at checkpoints (1,000 first).
 * 2. If the time budget ends before `target`, copies the last pending thread in SQLite until
 *    `target` pending threads exist (row for row what the engine writes; see sqlite-clone.ts).
 * 3. Creates 1,000 more pending threads through the engine on top, then reads heapUsed again.
 * Prints one JSON line.
 */

const target = Number(process.argv[2] ?? 100_000);
const budgetMs = Number(process.argv[3] ?? 60) * 1000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

interface Sample {
  label: string;
  pendingThreads: number;
  engineCreated: number;
  seconds: number;
  heapUsed: number;
  rss: number;
  external: number;
}

function settledMemory(): NodeJS.MemoryUsage {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage();
}

const dir = mkdtempSync(join(tmpdir(), 'baton-bench-heap-'));
const filename = join(dir, 'baton.db');
const baton = await createBaton(testConfig(), { store: { kind: 'sqlite', filename }, sweeper: false });
const samples: Sample[] = [];
const started = performance.now();
let engineCreated = 0;
let cloned = 0;
let lastThread = '';
let engineMs = 0;
const CONCURRENCY = 4;

async function createPending(count: number, deadline = Infinity): Promise<void> {
  const goal = engineCreated + count;
  const began = performance.now();
  while (engineCreated < goal && performance.now() < deadline) {
    const batch = Math.min(CONCURRENCY, goal - engineCreated);
    await Promise.all(
      Array.from({ length: batch }, async () => {
        const threadId = await createThread(baton);
        await sendSeed(baton, threadId);
        lastThread = threadId;
      }),
    );
    engineCreated += batch;
  }
  engineMs += performance.now() - began;
}

function sample(label: string): void {
  const memory = settledMemory();
  samples.push({
    label,
    pendingThreads: engineCreated + cloned,
    engineCreated,
    seconds: (performance.now() - started) / 1000,
    heapUsed: memory.heapUsed,
    rss: memory.rss,
    external: memory.external,
  });
}

try {
  const deadline = started + budgetMs;
  await createPending(1_000);
  sample('1,000 via engine');
  for (const checkpoint of [2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000].filter((n) => n <= target)) {
    await createPending(checkpoint - engineCreated, deadline);
    sample(`${engineCreated.toLocaleString('en-US')} via engine`);
    if (performance.now() >= deadline) break;
  }
  let cloneSeconds = 0;
  if (engineCreated < target) {
    const cloneStarted = performance.now();
    const cloner = new ThreadCloner(filename, lastThread);
    try {
      cloned = cloner.clone(target - engineCreated - 1_000, 5_000).length;
    } finally {
      cloner.close();
    }
    cloneSeconds = (performance.now() - cloneStarted) / 1000;
    sample(`+${cloned.toLocaleString('en-US')} copied in SQLite`);
  }
  await createPending(1_000);
  sample(`+1,000 more via engine`);

  // Cross-check in the database: every one of them is pending.
  const check = new Database(filename, { readonly: true });
  const pendingCalls = (
    check.prepare("select count(*) as n from ledger_entries where state = 'pending'").get() as { n: number }
  ).n;
  const pendingThreads = (
    check.prepare("select count(distinct conversation_id) as n from ledger_entries where state = 'pending'").get() as {
      n: number;
    }
  ).n;
  check.close();

  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  console.log(
    JSON.stringify({
      target,
      engineBudgetSeconds: budgetMs / 1000,
      engineCreated,
      cloned,
      cloneSeconds,
      engineThreadsPerSecond: engineCreated / (engineMs / 1000),
      pendingCallsInDb: pendingCalls,
      pendingThreadsInDb: pendingThreads,
      samples,
      heapRatio: last.heapUsed / first.heapUsed,
    }),
  );
} finally {
  await baton.close();
  rmSync(dir, { recursive: true, force: true });
}
