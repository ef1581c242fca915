import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBaton } from '../src/server/start-baton.ts';
import { testConfig } from '../test/helpers/test-baton.ts';
import { createThread, sendSeed } from './engine-driver.ts';

/**
 * Heap cost of pending threads. Run as its own process with --expose-gc:
 *   node --expose-gc --import tsx bench/heap-probe.ts [target=100000] [budgetSeconds=90]
 * Creates pending threads through the engine (createConversation + sendMessage, the same code as
 * the HTTP face minus Fastify), forcing GC and reading heapUsed at checkpoints. Stops at the target
 * or when the time budget is used. Prints one JSON line.
 */

const target = Number(process.argv[2] ?? 100_000);
const budgetMs = Number(process.argv[3] ?? 90) * 1000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

function settle(): { heapUsed: number; rss: number; external: number; arrayBuffers: number } {
  for (let i = 0; i < 4; i++) gc!();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, rss: usage.rss, external: usage.external, arrayBuffers: usage.arrayBuffers };
}

const dir = mkdtempSync(join(tmpdir(), 'baton-bench-heap-'));
const baton = await createBaton(testConfig(), { store: { kind: 'sqlite', filename: join(dir, 'baton.db') }, sweeper: false });
const checkpoints = [1_000, 10_000, 25_000, 50_000, 75_000, 100_000].filter((n) => n <= target);
if (!checkpoints.includes(target)) checkpoints.push(target);
const samples: Array<{ threads: number; seconds: number; heapUsed: number; rss: number; external: number }> = [];
const started = Date.now();
let created = 0;
let stoppedByBudget = false;
const CONCURRENCY = 4;
try {
  for (const checkpoint of checkpoints) {
    while (created < checkpoint) {
      if (Date.now() - started > budgetMs && created >= 1_000) {
        stoppedByBudget = true;
        break;
      }
      const batch = Math.min(CONCURRENCY, checkpoint - created);
      await Promise.all(
        Array.from({ length: batch }, async () => {
          const threadId = await createThread(baton);
          await sendSeed(baton, threadId);
        }),
      );
      created += batch;
    }
    const memory = settle();
    samples.push({ threads: created, seconds: (Date.now() - started) / 1000, heapUsed: memory.heapUsed, rss: memory.rss, external: memory.external });
    if (stoppedByBudget) break;
  }
  // Cross-check against the database: every thread really is pending.
  const pending = await baton.store.ledger.list({ appId: baton.defaultAppId, state: 'pending' }, { limit: 1, cursor: null });
  console.log(
    JSON.stringify({
      target,
      created,
      stoppedByBudget,
      budgetSeconds: budgetMs / 1000,
      pendingSample: pending.data.length,
      threadsPerSecond: created / ((Date.now() - started) / 1000),
      samples,
    }),
  );
} finally {
  await baton.close();
  rmSync(dir, { recursive: true, force: true });
}
