import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { startChatCompletionsFake } from '../models/fakes/chat-completions-fake.ts';
import { BatonProcess, makeWorkspace, PROCESS_ADMIN_KEY } from './baton-process.ts';
import { startModelProxy } from './model-proxy.ts';

/**
 * SIGTERM under load, to the real `baton serve`: readiness fails at once, requests and turns in
 * flight finish, no client gets a 5xx, an open event stream is told to reconnect, the process
 * exits cleanly, and after a restart nothing is left running and every acknowledged result is in
 * the ledger. A turn still running when the drain timeout cuts it stays resumable: the restarted
 * process takes it over and finishes it.
 */

const SEED = 'I need approval to process a $500 refund';
const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A model that calls request_approval, then answers the result; `delayMs` per request. */
async function slowModel(delayMs: (index: number) => number | 'forever') {
  const fake = await startChatCompletionsFake((view) =>
    view.toolResults.length > 0
      ? { text: `Done: ${view.toolResults.map((result) => result.output).join(', ')}` }
      : { calls: [{ name: 'request_approval', arguments: { action: 'refund', amount: 500 } }] },
  );
  const proxy = await startModelProxy(fake.baseURL, delayMs);
  cleanups.push(
    () => proxy.close(),
    () => fake.close(),
  );
  return proxy;
}

function writeConfig(configFile: string, modelUrl: string, drain: { timeout: number; delay: number }): void {
  writeFileSync(
    configFile,
    stringifyYaml({
      server: {
        drain_timeout_seconds: drain.timeout,
        shutdown_delay_seconds: drain.delay,
        idempotency_lease_seconds: 2,
      },
      engine: { turn_lease_seconds: 3, sweep_interval_ms: 200 },
      providers: { 'openai-compatible': { base_url: modelUrl, api_key: 'test-key' } },
      agents: [{ ...DEMO_AGENT, name: 'slow-desk', model: 'openai-compatible:local-model' }],
    }),
  );
}

async function post(url: string, path: string, body: unknown, key = randomUUID()) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${PROCESS_ADMIN_KEY}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('graceful shutdown of a real baton serve', () => {
  it('SIGTERM under load: no 5xx, in-flight round trips finish, nothing left running, no result lost', async () => {
    const workspace = makeWorkspace('baton-drain-');
    cleanups.push(() => workspace.remove());
    const model = await slowModel(() => 600);
    writeConfig(workspace.configFile, model.url, { timeout: 20, delay: 1 });
    const options = { dataDir: workspace.dataDir, configFile: workspace.configFile };
    const baton = await BatonProcess.start(options);
    cleanups.push(() => baton.kill());

    const statuses: number[] = [];
    const acknowledged: string[] = [];
    let finishedAfterSignal = 0;
    let signalledAt = Infinity;
    let stopped = false;
    /** A model-bound request sent before the signal and answered after it: in flight, not cut. */
    const countIfCrossed = (sentAt: number) => {
      if (sentAt < signalledAt && Date.now() > signalledAt) finishedAfterSignal += 1;
    };
    const client = async () => {
      while (!stopped) {
        try {
          const thread = await post(baton.url, '/v1/threads', { agent: 'slow-desk' });
          statuses.push(thread.status);
          if (thread.status !== 200) continue;
          const asked = Date.now();
          const paused = await post(baton.url, `/v1/threads/${thread.body.id}/messages`, { content: SEED });
          statuses.push(paused.status);
          if (paused.status === 200) countIfCrossed(asked);
          const call = paused.body.choices?.[0]?.message?.tool_calls?.[0]?.id as string | undefined;
          if (paused.status !== 200 || !call) continue;
          const started = Date.now();
          const answered = await post(baton.url, `/v1/threads/${thread.body.id}/messages`, {
            content: [{ type: 'tool_result', tool_call_id: call, content: '{"approved": true}' }],
          });
          statuses.push(answered.status);
          if (answered.status === 200) {
            acknowledged.push(call);
            countIfCrossed(started);
          }
        } catch {
          // The server stopped listening: connection refused or closed. Never a 5xx.
          stopped = true;
        }
      }
    };
    const clients = Array.from({ length: 6 }, () => client());

    // An inbox's live stream, open when the signal comes.
    const events = await fetch(`${baton.url}/v1/tool-calls/events`, {
      headers: { authorization: `Bearer ${PROCESS_ADMIN_KEY}` },
    });
    const reader = events.body!.getReader();
    let streamed = '';
    const streamEnded = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        streamed += new TextDecoder().decode(value);
      }
    })();

    await new Promise((resolve) => setTimeout(resolve, 3_000));
    signalledAt = Date.now();
    baton.child.kill('SIGTERM');
    // Readiness fails as soon as the signal lands, while the process still answers (shutdown_delay_seconds: 1).
    let readiness = await fetch(`${baton.url}/readyz`);
    for (let i = 0; i < 20 && readiness.status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      readiness = await fetch(`${baton.url}/readyz`);
    }
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toMatchObject({ ready: false, problem: expect.stringContaining('draining') });
    expect(Date.now() - signalledAt).toBeLessThan(1_000);

    const exit = await baton.exit();
    stopped = true;
    await Promise.all(clients);
    await streamEnded;
    expect(exit, baton.log).toEqual({ code: 0, signal: null });
    expect(baton.log).toContain('Drained: every request and turn finished.');
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(0);
    // Requests (messages and results) in flight when the signal came were answered, not cut.
    expect(finishedAfterSignal).toBeGreaterThan(0);
    expect(streamed).toContain(': server draining');

    const restarted = await BatonProcess.start(options);
    cleanups.push(() => restarted.kill());
    const threads = await restarted.request('GET', '/v1/threads?limit=100');
    expect(threads.body.data.map((thread: { status: string }) => thread.status)).not.toContain('running');
    for (const call of acknowledged) {
      expect((await restarted.request('GET', `/v1/tool-calls/${call}`)).body.state).toBe('completed');
    }
  }, 90_000);

  it('a turn still running when the drain timeout cuts it is taken over and continued after the restart', async () => {
    const workspace = makeWorkspace('baton-drain-cut-');
    cleanups.push(() => workspace.remove());
    // The first request (the turn's first step) never answers; later ones answer at once.
    const model = await slowModel((index) => (index === 0 ? 'forever' : 0));
    writeConfig(workspace.configFile, model.url, { timeout: 1, delay: 0 });
    const options = { dataDir: workspace.dataDir, configFile: workspace.configFile };
    const baton = await BatonProcess.start(options);
    cleanups.push(() => baton.kill());

    const thread = await baton.request('POST', '/v1/threads', { agent: 'slow-desk' });
    // Streamed, so the turn is written before the model is asked (as a long first step's is).
    const message = fetch(`${baton.url}/v1/threads/${thread.body.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PROCESS_ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: SEED, stream: true }),
    })
      .then((response) => response.text())
      .catch(() => 'cut');
    for (let i = 0; i < 50 && model.requests() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(model.requests()).toBe(1);
    baton.child.kill('SIGTERM');
    expect(await baton.exit()).toEqual({ code: 0, signal: null });
    expect(baton.log).toContain('Drained with work still running');
    await message;

    // The restarted process takes the turn over, asks the model again and pauses on the call.
    const restarted = await BatonProcess.start(options);
    cleanups.push(() => restarted.kill());
    let state = '';
    for (let i = 0; i < 100 && state !== 'pending'; i++) {
      state = (await restarted.request('GET', `/v1/threads/${thread.body.id}`)).body.status;
      if (state !== 'pending') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(state).toBe('pending');
  }, 60_000);
});
