import { writeFileSync } from 'node:fs';
import { stringify as stringifyYaml } from 'yaml';
import { Baton, derivedIdempotencyKey } from '@baton/client';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { STOCK_PROGRAM, startHoldingStockApi, stockThread } from './stock-fixtures.ts';
import { BatonProcess, makeWorkspace, PROCESS_ADMIN_KEY } from './baton-process.ts';
import { freshDatabasePerTest, processDatabases } from './process-databases.ts';

/**
 * An Idempotency-Key whose request was in flight when the real `baton serve` was SIGKILLed is
 * not refused forever: after the restart, the retry with the same key and body takes the key
 * over once the dead process's lease (2 s here) ended, and runs. The request is slow because
 * its turn calls a server tool whose local API holds the first call until the process is gone.
 * The retry does not send the message again: it rejoins the turn the first attempt started,
 * which the restarted process took over, and answers its reply. Both attempts go through the
 * SDK with a derived key, as its runner sends results.
 */

const LEASE_SECONDS = 2;

const processes: BatonProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  // Runs even when an assertion failed: no server outlives its test, no temp dir is left behind.
  await Promise.all(processes.splice(0).map((baton) => baton.kill()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The database of the running test: undefined for SQLite in the data directory. */
let databaseUrl: string | undefined;
const databases = await processDatabases();

async function start(dataDir: string, configFile: string): Promise<BatonProcess> {
  const baton = await BatonProcess.start({ dataDir, configFile, databaseUrl });
  processes.push(baton);
  return baton;
}

/** A config with a short lease, loopback egress for the API, and a program that calls it. */
function writeConfig(configFile: string): void {
  writeFileSync(
    configFile,
    stringifyYaml({
      server: { idempotency_lease_seconds: LEASE_SECONDS },
      // On PostgreSQL a restarted replica cannot know the dead one's turn is orphaned until its
      // lease is this old; the sweeper then takes it over (SQLite's single process does at start).
      engine: { turn_lease_seconds: 3 },
      egress: { allow: ['127.0.0.1/32'] },
      scripted: { tools: STOCK_PROGRAM },
      agents: [DEMO_AGENT],
    }),
  );
}

async function until(condition: () => boolean, what: string, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Repeats `send` while the thread is still busy with the dead process's turn (`thread_busy`, 409):
 * a client's retry, bounded by the stale-turn time plus a sweep.
 */
async function untilTurnReleased<T>(send: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await send();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== 'thread_busy' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

describe.each(databases)('Idempotency-Key across a crash (real process, SIGKILL) on $name', (database) => {
  freshDatabasePerTest(database, processes, (url) => (databaseUrl = url));

  it('lets the retry with the same key run after a restart, rejoining the turn, instead of answering 409 forever', async () => {
    const workspace = makeWorkspace();
    cleanups.push(() => workspace.remove());
    writeConfig(workspace.configFile);
    const api = await startHoldingStockApi();
    cleanups.push(() => api.close());

    const first = await start(workspace.dataDir, workspace.configFile);
    const threadId = await stockThread(first, api);
    const path = `/v1/threads/${threadId}/messages`;
    const message = { role: 'user' as const, content: 'How much stock is left?' };
    // A key derived from what is sent, as the SDK's runner makes them: the same after any restart.
    const idempotencyKey = await derivedIdempotencyKey('stock-question', [threadId], JSON.stringify(message));

    // The request runs until its tool call reaches the API, which holds it; then the process dies.
    const client = new Baton({ baseURL: first.url, apiKey: PROCESS_ADMIN_KEY, maxRetries: 0 });
    const inFlight = client.threads.send(threadId, message, { idempotencyKey }).then(
      () => 'answered',
      () => 'cut off',
    );
    await until(
      () => api.hits.length === 1,
      'the tool call to reach the API',
      () => first.log,
    );
    await first.kill();
    expect(await inFlight).toBe('cut off');

    // A fresh client (as after its own restart) repeats the request with the same key. The dead
    // process's lease ends at most 2 s after its last renewal: the retry takes the key over then
    // (the server waits for it if needed) and runs the request.
    const second = await start(workspace.dataDir, workspace.configFile);
    const after = new Baton({ baseURL: second.url, apiKey: PROCESS_ADMIN_KEY });
    const answer = await untilTurnReleased(() => after.threads.send(threadId, message, { idempotencyKey }));
    // The cut-off call is not run again (its tool is not idempotent): the model was told its
    // outcome is unknown, and said so.
    expect('choices' in answer && answer.choices[0]?.message.content).toContain('whether it took effect is unknown');
    expect(api.hits).toHaveLength(1);

    const key = { 'idempotency-key': idempotencyKey };
    const replayed = await second.request('POST', path, message, key);
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(answer);

    // Another body under the key is still refused.
    const reused = await second.request('POST', path, { role: 'user', content: 'Something else' }, key);
    expect(reused.status, reused.text).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    expect(api.hits).toHaveLength(1);

    // The call cut off by the crash is not forgotten: its claim outlived the process, and recovery
    // recorded it, in the ledger and in the transcript, as a call whose outcome is unknown.
    const messages = await second.request('GET', `/v1/threads/${threadId}/messages`);
    const calls = (messages.body.data as { tool_calls?: { id: string; name: string; executor?: string }[] }[]).flatMap(
      (entry) => entry.tool_calls ?? [],
    );
    // One message, one call: the retry added nothing to the conversation.
    expect((messages.body.data as { role: string }[]).map((entry) => entry.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(calls.map((call) => [call.name, call.executor])).toEqual([['getStock', 'server']]);
    const cutOff = await second.request('GET', `/v1/tool-calls/${calls[0]!.id}`);
    expect(cutOff.body).toMatchObject({ state: 'failed', submitted_by: 'baton:recovery' });
    expect(cutOff.body.result.content).toContain('whether it took effect is unknown');
    const results = (messages.body.data as { content: unknown }[]).flatMap((entry) =>
      Array.isArray(entry.content) ? (entry.content as { tool_call_id: string; is_error?: boolean }[]) : [],
    );
    expect(results.find((result) => result.tool_call_id === calls[0]!.id)?.is_error).toBe(true);
  }, 120_000);
});
