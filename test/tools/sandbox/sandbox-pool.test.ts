/**
 * The sandbox's worker pool: calls run in worker threads with the sandbox's usual semantics and
 * errors; a call stuck where QuickJS's interrupt never reaches is stopped from outside (its
 * worker terminated and replaced); one app cannot take every worker; the wait is bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxCall } from '../../../src/tools/sandbox/js-sandbox.ts';
import { SandboxError } from '../../../src/tools/sandbox/sandbox-error.ts';
import { SandboxPool } from '../../../src/tools/sandbox/sandbox-pool.ts';
import { expectSandboxError } from './sandbox-test-helpers.ts';

function call(body: string, extra: Partial<SandboxCall> = {}): SandboxCall {
  return {
    code: `function main(args) {\n${body}\n}`,
    functionNames: ['main'],
    args: [{ n: 2 }],
    label: 'test tool',
    ...extra,
  };
}

/** A sparse array's indexOf loops over 2^32 indices in C, where the interrupt handler is never called. */
const UNINTERRUPTIBLE = 'return Array(2 ** 32 - 1).indexOf(1);';
const FOREVER = 'for (;;) {}';

/** Settles `promise` into a flag, so a test can ask whether it finished yet without awaiting it. */
function track<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  const tracked = promise.finally(() => {
    settled = true;
  });
  tracked.catch(() => {});
  return { promise: tracked, settled: () => settled };
}

async function untilRunning(pool: SandboxPool, count: number): Promise<void> {
  while (pool.stats().running < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('SandboxPool', () => {
  let pool: SandboxPool;
  beforeAll(() => {
    pool = new SandboxPool({ size: 2 });
  });
  afterAll(async () => pool?.close());

  it('runs calls in a worker with a fresh runtime each, JSON in and out, logs included', async () => {
    const first = await pool.run(call('globalThis.leak = 1; console.log("hi", args.n); return { twice: args.n * 2 };'));
    expect(first).toEqual({ functionName: 'main', value: { twice: 4 }, logs: ['hi 2'] });
    const second = await pool.run(call('return typeof leak;'));
    expect(second.value).toBe('undefined');
  });

  it('brings guest errors back as the same SandboxErrors, with code, function and logs', async () => {
    const thrown = await expectSandboxError(
      pool.run(call('console.log("before"); throw new RangeError("no stock");')),
      'thrown',
    );
    expect(thrown.message).toBe('test tool: main() threw RangeError: no stock');
    expect(thrown.functionName).toBe('main');
    expect(thrown.logs).toEqual(['before']);
    expect(thrown.guestStack).toContain('tool.js');
    const stopped = await expectSandboxError(pool.run(call(FOREVER, { limits: { timeoutMs: 200 } })), 'timeout');
    expect(stopped.message).toBe('test tool: main() did not finish within 200 ms and was stopped');
    await expectSandboxError(
      pool.run(call('return "x".repeat(100);', { limits: { maxOutputBytes: 10 } })),
      'output_too_large',
    );
  });

  it('refuses the caller’s own mistakes before a worker is involved', async () => {
    await expect(pool.run(call('', { functionNames: ['main; process'] }))).rejects.toThrow(TypeError);
    await expect(pool.run(call('', { limits: { timeoutMs: 0 } }))).rejects.toThrow(RangeError);
  });

  it('terminates a worker stuck past the deadline where the interrupt never reaches, replaces it, and the next call works', async () => {
    const before = pool.stats();
    const error = await expectSandboxError(pool.run(call(UNINTERRUPTIBLE, { limits: { timeoutMs: 200 } })), 'timeout');
    expect(error.message).toBe(
      'test tool: the code did not finish within 200 ms and was stopped (its sandbox worker was terminated)',
    );
    expect(pool.stats().killed).toBe(before.killed + 1);
    expect(pool.stats().workers).toBe(2);
    const next = await pool.run(call('return args.n + 1;'));
    expect(next.value).toBe(3);
    expect(pool.stats().started).toBeGreaterThan(before.started);
  });

  it('stops a running call when the caller gives up (its signal aborts)', async () => {
    const before = pool.stats().killed;
    const controller = new AbortController();
    const running = track(pool.run(call(FOREVER, { limits: { timeoutMs: 60_000 } }), { signal: controller.signal }));
    await untilRunning(pool, 1);
    controller.abort(new Error('turn cancelled'));
    await expect(running.promise).rejects.toThrow('turn cancelled');
    expect(pool.stats().killed).toBe(before + 1);
  });

  it('one app busy on every call it may run still leaves a worker to another app', async () => {
    const long = call(FOREVER, { limits: { timeoutMs: 60_000 } });
    const controller = new AbortController();
    const first = track(pool.run(long, { owner: 'app-a', signal: controller.signal }));
    const second = track(pool.run(long, { owner: 'app-a', signal: controller.signal }));
    const other = await pool.run(call('return "served";'), { owner: 'app-b' });
    expect(other.value).toBe('served');
    expect(pool.stats()).toMatchObject({ running: 1, waiting: 1 });
    expect(first.settled() || second.settled()).toBe(false);
    controller.abort(new Error('done'));
    await Promise.allSettled([first.promise, second.promise]);
  });
});

describe('SandboxPool queue bound', () => {
  it('refuses a call at once with busy when too many of the app’s calls are waiting', async () => {
    const pool = new SandboxPool({ size: 1 });
    try {
      const long = call(FOREVER, { limits: { timeoutMs: 60_000 } });
      // One runs, 32 (the per-app bound) wait; the next is refused without waiting.
      const held = [track(pool.run(long, { owner: 'flooder' }))];
      await untilRunning(pool, 1);
      for (let i = 0; i < 32; i++) held.push(track(pool.run(long, { owner: 'flooder' })));
      const refused = await expectSandboxError(pool.run(long, { owner: 'flooder' }), 'busy');
      expect(refused.message).toMatch(/^test tool: the code did not run: too many sandbox tasks are waiting/);
      expect(refused.message).toContain('tools.sandbox_workers is 1');
      expect(held.some((run) => run.settled())).toBe(false);
      await pool.close();
      const closed = await Promise.allSettled(held.map((run) => run.promise));
      expect(closed.every((result) => result.status === 'rejected' && result.reason instanceof SandboxError)).toBe(
        true,
      );
    } finally {
      await pool.close();
    }
  });
});
