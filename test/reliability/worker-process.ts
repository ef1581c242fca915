import { appendFileSync } from 'node:fs';
import { Baton } from '../../packages/client/src/index.ts';

/**
 * A tool worker as a real process, for test/reliability/tool-workers.test.ts, which SIGKILLs,
 * freezes and restarts it: `node --import tsx test/reliability/worker-process.ts`, configured
 * through its environment. It serves `check_stock` with the SDK's `baton.workers.run`, and its
 * handler applies a side effect before returning: one line `callId leaseToken pid` appended to the
 * effects file. The test compares those lines with the results Baton accepted.
 *
 * Prints `ready` once the fleet loop runs. SIGTERM stops it as an operator would: the loop's signal
 * aborts, unstarted claims are released, running handlers finish, and the process exits 0.
 * Every error the loop reports goes to stderr as `worker-error <code> <stage> <call> <message>`, so
 * the test can count the lost leases of a frozen worker.
 */

function setting(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`worker-process: ${name} is not set`);
  return value;
}

const baseURL = setting('WORKER_BATON_URL');
const apiKey = setting('WORKER_API_KEY');
const effectsFile = setting('WORKER_EFFECTS_FILE');
const label = setting('WORKER_LABEL');
const concurrency = Number(setting('WORKER_CONCURRENCY'));
const leaseSeconds = Number(setting('WORKER_LEASE_SECONDS'));
/** Simulated work before the effect, in ms: a random span of [min, max]. */
const [workMin, workMax] = setting('WORKER_WORK_MS').split('-').map(Number) as [number, number];
/**
 * A pause between the effect and the return. A real worker's window between applying an effect
 * and its result reaching Baton is the submit's round trip; widening it makes a kill land in that
 * window (effect applied, result lost) often enough for the test to see leases that lapse after
 * their effect.
 */
const afterEffectMs = Number(setting('WORKER_AFTER_EFFECT_MS'));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Requests time out in 30 s rather than the SDK's 10 minutes: a replica that stopped answering must
// fail the test in its time, not hang it (the fleet sets its own, longer, timeout on long-polls).
const baton = new Baton({ baseURL, apiKey, timeoutMs: 30_000, retryDelayMs: 100 });
const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());

const fleet = baton.workers.run({
  handlers: {
    check_stock: async (input, ctx) => {
      await sleep(workMin + Math.random() * (workMax - workMin));
      // The effect is applied whatever ctx.signal says: the test is about Baton's guarantee that a
      // worker whose lease lapsed cannot get its result accepted, not about a polite worker.
      // appendFileSync opens with O_APPEND, so lines of concurrent processes never interleave.
      // The token is read once: the effect and the result name the same lease.
      const lease = ctx.lease.token;
      appendFileSync(effectsFile, `${ctx.call.id} ${lease} ${process.pid}\n`);
      await sleep(afterEffectMs);
      const sku = (input as { sku?: unknown } | null)?.sku;
      return { sku: typeof sku === 'string' ? sku : null, in_stock: 4, lease, pid: process.pid };
    },
  },
  concurrency,
  signal: stop.signal,
  leaseSeconds,
  waitSeconds: 5,
  worker: label,
  onError: (error, context) => {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `worker-error ${typeof code === 'string' ? code : 'unknown'} ${context.stage} ${context.call?.id ?? '-'} ${message}\n`,
    );
  },
});
process.stdout.write('ready\n');

try {
  const summary = await fleet;
  process.stdout.write(`summary ${JSON.stringify(summary)}\n`);
  process.exitCode = 0;
} catch (error) {
  process.stderr.write(`worker-process: the fleet loop failed: ${error instanceof Error ? error.stack : error}\n`);
  process.exitCode = 1;
}
