import {
  Baton,
  BatonConnectionError,
  BatonLeaseLostError,
  type WorkerContext,
  type WorkerErrorContext,
} from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { startClientHarness, type ClientHarness } from './client-fixtures.ts';
import { SabotageProxy } from './sabotage-proxy.ts';
import {
  deferred,
  finalAnswer,
  pausedCall,
  pendingOf,
  sleep,
  TOOL,
  until,
  warehouseAgent,
  warehouseProgram,
  type Deferred,
} from './worker-fixtures.ts';

/**
 * `baton.workers.run` against a real Baton (docs/tool-workers.md): conversations pause on
 * `check_stock`, a tool marked `"executor": "worker"`, and a fleet in the test claims, runs and
 * answers the calls. Each test has its own agent and its fleet claims only that agent's calls.
 */
describe('baton.workers.run', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness(
      {},
      ['stock-basic', 'stock-busy', 'stock-stop', 'stock-abandon', 'stock-fault'].map(warehouseAgent),
      {
        warehouse: warehouseProgram,
      },
    );
  });
  afterAll(async () => h.close());

  type Reported = { error: unknown; context: WorkerErrorContext };

  it('answers paused worker calls under their leases: values as JSON, strings as is, throws as errors', async () => {
    const ok = await pausedCall(h.baton, 'stock-basic', 'stock A-1');
    const text = await pausedCall(h.baton, 'stock-basic', 'stock text-2');
    const broken = await pausedCall(h.baton, 'stock-basic', 'stock broken-3');
    const seen = new Map<string, WorkerContext>();
    const reported: Reported[] = [];
    const stop = new AbortController();
    const fleet = h.baton.workers.run({
      handlers: {
        [TOOL]: async ({ sku }: { sku: string }, ctx) => {
          seen.set(ctx.call.id, ctx);
          if (sku.includes('broken')) throw new Error(`no such sku: ${sku}`);
          if (sku.includes('text')) return `plain ${sku}`;
          return { sku, in_stock: 4 };
        },
      },
      agents: ['stock-basic'],
      waitSeconds: 1,
      worker: 'warehouse-1',
      signal: stop.signal,
      onError: (error, context) => reported.push({ error, context }),
    });

    expect(await finalAnswer(h.baton, ok.threadId)).toBe('Stock: {"sku":"stock A-1","in_stock":4}');
    expect(await finalAnswer(h.baton, text.threadId)).toBe('Stock: plain stock text-2');
    expect(await finalAnswer(h.baton, broken.threadId)).toBe('Failed: no such sku: stock broken-3');
    stop.abort();
    expect(await fleet).toEqual({ submitted: 3, lost: 0, released: 0, abandoned: 0, failed: 0 });
    expect(reported).toEqual([]);

    const context = seen.get(ok.callId)!;
    expect(context.attempt).toBe(1);
    expect(context.lease.token).toMatch(/^lease_/);
    expect(context.lease.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(context.call).toMatchObject({
      id: ok.callId,
      executor: 'worker',
      attempts: 1,
      max_attempts: 3,
      lease: { token: context.lease.token, holder: 'warehouse-1' },
    });
    expect(context.signal.aborted).toBe(false);
    const answered = await h.baton.toolCalls.get(ok.callId);
    expect(answered).toMatchObject({
      state: 'completed',
      executor: 'worker',
      attempts: 1,
      result: { content: '{"sku":"stock A-1","in_stock":4}', is_error: false },
    });
    // The token is the holder's secret: never in what others read.
    expect(answered.lease?.token).toBeUndefined();
    expect(await h.baton.toolCalls.get(broken.callId)).toMatchObject({
      state: 'failed',
      result: { content: 'no such sku: stock broken-3', is_error: true },
    });
  });

  it('runs at most `concurrency` handlers at once and claims only for its free slots', async () => {
    const calls = await Promise.all(
      Array.from({ length: 7 }, (_, index) => pausedCall(h.baton, 'stock-busy', `stock S-${index}`)),
    );
    let active = 0;
    let peak = 0;
    const gates: Deferred<void>[] = [];
    const stop = new AbortController();
    const fleet = h.baton.workers.run({
      handlers: {
        [TOOL]: async () => {
          active += 1;
          peak = Math.max(peak, active);
          const gate = deferred();
          gates.push(gate);
          await gate.promise;
          active -= 1;
          return 'done';
        },
      },
      concurrency: 3,
      agents: ['stock-busy'],
      waitSeconds: 1,
      signal: stop.signal,
    });

    await until('three handlers run', () => gates.length === 3);
    // Past a whole long-poll: a fleet with no free slot claims nothing more.
    await sleep(1_500);
    expect(gates).toHaveLength(3);
    const pending = await pendingOf(h.baton, 'stock-busy');
    expect(pending).toHaveLength(7);
    expect(pending.filter((call) => call.lease)).toHaveLength(3);
    expect(pending.filter((call) => !call.lease).map((call) => call.attempts)).toEqual([0, 0, 0, 0]);

    // Each that finishes frees one slot, and exactly one more call is claimed and run for it.
    for (let opened = 0; opened < calls.length; opened++) {
      gates[opened]!.resolve();
      const next = Math.min(opened + 4, calls.length);
      await until(`handler ${next} runs`, () => gates.length === next && active === next - opened - 1);
      await sleep(300);
      expect(gates).toHaveLength(next);
    }
    for (const call of calls) expect(await finalAnswer(h.baton, call.threadId)).toBe('Stock: done');
    expect(peak).toBe(3);
    stop.abort();
    expect(await fleet).toMatchObject({ submitted: 7, lost: 0, released: 0 });
  });

  it('stops gracefully: gives back what a long-poll brings after the stop, lets the running handler finish and submit', async () => {
    // Counts what the fleet sends (it changes nothing): the claims, and the releases once answered.
    let claims = 0;
    let releases = 0;
    const baton = new Baton({
      baseURL: h.server.url,
      apiKey: h.server.key,
      retryDelayMs: 20,
      fetch: async (url, init) => {
        if (url.endsWith('/v1/tool-calls/claim')) claims += 1;
        const response = await globalThis.fetch(url, init);
        if (url.endsWith('/release') && response.ok) releases += 1;
        return response;
      },
    });
    const first = await pausedCall(baton, 'stock-stop', 'stock first');
    const started = deferred<WorkerContext>();
    const gate = deferred();
    const stop = new AbortController();
    let settled = false;
    const fleet = baton.workers
      .run({
        handlers: {
          [TOOL]: async (_input, ctx) => {
            started.resolve(ctx);
            await gate.promise;
            return `packed (signal aborted: ${ctx.signal.aborted})`;
          },
        },
        concurrency: 2,
        leaseSeconds: 5,
        waitSeconds: 10,
        agents: ['stock-stop'],
        signal: stop.signal,
      })
      .finally(() => {
        settled = true;
      });
    const context = await started.promise;
    // The free slot's long-poll is out when the stop comes.
    await until('the second claim is sent', () => claims === 2);
    stop.abort();
    const expiryAtStop = (await baton.toolCalls.get(first.callId)).lease!.expires_at;

    // A call arriving now is taken by that long-poll, and given back unstarted.
    const second = await pausedCall(baton, 'stock-stop', 'stock second');
    await until('the late claim is released', () => releases === 1);
    expect(await baton.toolCalls.get(second.callId)).toMatchObject({ state: 'pending', attempts: 0, lease: null });

    // The running handler's lease is still renewed after the stop, and the fleet waits for it.
    await until(
      'the running lease is renewed',
      async () => (await baton.toolCalls.get(first.callId)).lease!.expires_at > expiryAtStop,
      5_000,
    );
    expect(settled).toBe(false);
    expect(context.signal.aborted).toBe(false);
    gate.resolve();
    expect(await fleet).toEqual({ submitted: 1, lost: 0, released: 1, abandoned: 0, failed: 0 });
    expect(claims).toBe(2);
    expect(await finalAnswer(baton, first.threadId)).toBe('Stock: packed (signal aborted: false)');

    // Given back for real: the next claim takes it at once, as its first attempt.
    const [again] = await baton.toolCalls.claim({ tools: [TOOL], agents: ['stock-stop'] });
    expect(again).toMatchObject({ id: second.callId, attempts: 1 });
    await baton.toolCalls.submitResult(second.callId, { content: 'by hand', lease_token: again!.lease!.token! });
    expect(await finalAnswer(baton, second.threadId)).toBe('Stock: by hand');
  });

  it('gives up on a handler that outlives shutdownTimeoutMs: its signal aborts and nothing is sent', async () => {
    const call = await pausedCall(h.baton, 'stock-abandon', 'stock stuck');
    const started = deferred<WorkerContext>();
    const stop = new AbortController();
    const fleet = h.baton.workers.run({
      handlers: {
        [TOOL]: (_input, ctx) => {
          started.resolve(ctx);
          return new Promise(() => {}); // never answers
        },
      },
      agents: ['stock-abandon'],
      waitSeconds: 0,
      shutdownTimeoutMs: 200,
      signal: stop.signal,
    });
    const context = await started.promise;
    stop.abort();
    expect(await fleet).toEqual({ submitted: 0, lost: 0, released: 0, abandoned: 1, failed: 0 });
    expect(context.signal.aborted).toBe(true);
    expect(context.signal.reason).toMatchObject({ name: 'AbortError' });
    // Still held by the abandoned lease, which lapses in its time (no heartbeat renews it).
    expect(await h.baton.toolCalls.get(call.callId)).toMatchObject({ state: 'pending', attempts: 1 });
  });

  it('goes on through network faults: a lost claim answer is replayed, a lost submit answer too', async () => {
    const call = await pausedCall(h.baton, 'stock-fault', 'stock F-1');
    const isClaim = (request: { url: string }): boolean => request.url.endsWith('/v1/tool-calls/claim');
    const isSubmit = (request: { url: string }): boolean => request.url.endsWith(`/${call.callId}/result`);
    // The first claim and the first submit reach Baton and are applied; the worker never hears back.
    const proxy = await new SabotageProxy(h.server.url, (request, seen) =>
      (isClaim(request) && !seen.some(isClaim)) || (isSubmit(request) && !seen.some(isSubmit))
        ? 'after-response'
        : null,
    ).start();
    try {
      // No retries in the transport: the fleet's own back-off does the retrying.
      const baton = new Baton({ baseURL: proxy.url, apiKey: h.server.key, maxRetries: 0 });
      const runs: string[] = [];
      const reported: Reported[] = [];
      const stop = new AbortController();
      const fleet = baton.workers.run({
        handlers: {
          [TOOL]: (_input, ctx) => {
            runs.push(ctx.call.id);
            return { in_stock: 1 };
          },
        },
        agents: ['stock-fault'],
        waitSeconds: 1,
        signal: stop.signal,
        onError: (error, context) => reported.push({ error, context }),
      });
      expect(await finalAnswer(h.baton, call.threadId)).toBe('Stock: {"in_stock":1}');
      stop.abort();
      expect(await fleet).toMatchObject({ submitted: 1, lost: 0, failed: 0 });

      expect(runs).toEqual([call.callId]);
      expect(reported.map((entry) => entry.context.stage)).toEqual(['claim', 'submit']);
      for (const entry of reported) expect(entry.error).toBeInstanceOf(BatonConnectionError);
      // The claim was replayed, not made again: one attempt, and both requests under one key.
      expect(await h.baton.toolCalls.get(call.callId)).toMatchObject({ state: 'completed', attempts: 1 });
      for (const which of [isClaim, isSubmit]) {
        const [lost, retry] = proxy.requests.filter(which);
        expect(retry?.headers['idempotency-key']).toBe(lost?.headers['idempotency-key']);
        expect(retry?.responseHeaders['idempotent-replayed']).toBe('true');
      }
    } finally {
      await proxy.close();
    }
  });

  it('rejects when the server refuses the claim for good: a tool that is not for workers', async () => {
    const stop = new AbortController();
    const run = h.baton.workers.run({ handlers: { get_weather: () => 'sunny' }, signal: stop.signal, waitSeconds: 0 });
    await expect(run).rejects.toMatchObject({ status: 400, code: 'tool_not_for_workers' });
    await expect(h.baton.workers.run({ handlers: {}, signal: stop.signal })).rejects.toThrow(TypeError);
  });
});

/**
 * A lease lost to another worker: the server's clock moves past the lease (as if the worker had
 * stalled), another claimer takes the call, and the worker's next heartbeat meets 409 lease_lost.
 */
describe('baton.workers.run when a lease is lost', () => {
  let server: TestBaton;
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    server = await startTestBaton(
      { scripted: { warehouse: warehouseProgram }, agents: [warehouseAgent('stock-lost')] },
      { clock },
    );
  });
  afterAll(async () => server.close());

  it("aborts the handler's signal and does not send its result; the new holder's result is the one accepted", async () => {
    const worker = new Baton({ baseURL: server.url, apiKey: server.key, retryDelayMs: 20 });
    const thief = new Baton({ baseURL: server.url, apiKey: server.key, retryDelayMs: 20 });
    const call = await pausedCall(worker, 'stock-lost', 'stock L-1');
    const started = deferred<WorkerContext>();
    const reported: { error: unknown; context: WorkerErrorContext }[] = [];
    const stop = new AbortController();
    const fleet = worker.workers.run({
      handlers: {
        [TOOL]: async (_input, ctx) => {
          started.resolve(ctx);
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
          return 'late result';
        },
      },
      concurrency: 1,
      leaseSeconds: 5,
      waitSeconds: 1,
      agents: ['stock-lost'],
      worker: 'stalled',
      signal: stop.signal,
      onError: (error, context) => reported.push({ error, context }),
    });
    const context = await started.promise;
    const lostToken = context.lease.token;

    clock.advance(10);
    const [stolen] = await thief.toolCalls.claim({ tools: [TOOL], worker: 'thief', leaseSeconds: 60 });
    expect(stolen).toMatchObject({ id: call.callId, attempts: 2, lease: { holder: 'thief' } });

    await until('the handler is told', () => context.signal.aborted, 5_000);
    expect(context.signal.reason).toBeInstanceOf(BatonLeaseLostError);
    expect(context.signal.reason).toMatchObject({ callId: call.callId, reason: 'lease_lost', code: 'lease_lost' });
    await until('the loss is reported', () => reported.length > 0, 2_000);
    expect(reported[0]).toMatchObject({ context: { stage: 'renew', call: { id: call.callId } } });
    expect(reported[0]!.error).toBeInstanceOf(BatonLeaseLostError);

    // The late result was not sent: the call still waits, held by the thief.
    await sleep(200);
    const row = await thief.toolCalls.get(call.callId);
    expect(row).toMatchObject({ state: 'pending', attempts: 2, lease: { holder: 'thief' } });
    expect(row.lease?.token).toBeUndefined();
    // And Baton would refuse it: the old token is fenced off, and no token at all meets the live lease.
    await expect(
      worker.toolCalls.submitResult(call.callId, { content: 'late', lease_token: lostToken }),
    ).rejects.toMatchObject({ status: 409, code: 'lease_lost' });
    await expect(worker.toolCalls.renewLease(call.callId, lostToken)).rejects.toMatchObject({
      status: 409,
      code: 'lease_lost',
    });
    await expect(worker.toolCalls.submitResult(call.callId, { content: 'late' })).rejects.toMatchObject({
      status: 409,
      code: 'tool_call_leased',
    });

    await thief.toolCalls.submitResult(call.callId, { content: 'from the thief', lease_token: stolen!.lease!.token! });
    expect(await finalAnswer(worker, call.threadId)).toBe('Stock: from the thief');
    stop.abort();
    expect(await fleet).toEqual({ submitted: 0, lost: 1, released: 0, abandoned: 0, failed: 0 });
    expect(reported).toHaveLength(1);
  });
});
