import { writeFileSync } from 'node:fs';
import { stringify as stringifyYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import type { LocalServer } from '../tools/http/local-servers.ts';
import { startChatCompletionsFake, type ChatCompletionsFake } from '../models/fakes/chat-completions-fake.ts';
import { startModelProxy } from './model-proxy.ts';
import { STOCK_PROGRAM, startHoldingStockApi, stockThread } from './stock-fixtures.ts';
import { BatonProcess, makeWorkspace } from './baton-process.ts';
import { freshDatabasePerTest, processDatabases } from './process-databases.ts';

/**
 * Two real `baton serve` replicas on one database. The one running a turn is SIGKILLed mid-turn;
 * the other finds the turn's lease silent (3 s here), takes the turn over and finishes it, with
 * no client doing anything. Ledger effects happen once: a server call cut off mid-run is run again
 * when its tool is `idempotent`, and reported to the model as an unknown outcome otherwise.
 */

const LEASE_SECONDS = 3;

const processes: BatonProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  await Promise.all(processes.splice(0).map((baton) => baton.kill()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

let databaseUrl: string | undefined;
const databases = await processDatabases();

async function startHoldingApi(): Promise<LocalServer> {
  const api = await startHoldingStockApi();
  cleanups.push(() => api.close());
  return api;
}

/**
 * A model endpoint in front of the Chat Completions fake that holds the first request forever (the
 * replica asking dies while it waits) and forwards the rest.
 */
async function startHoldingModel(fake: ChatCompletionsFake): Promise<{ url: string; held: () => number }> {
  const proxy = await startModelProxy(fake.baseURL, (index) => (index === 0 ? 'forever' : 0));
  cleanups.push(() => proxy.close());
  return { url: proxy.url, held: () => Math.min(1, proxy.requests()) };
}

function writeConfig(configFile: string, modelBaseUrl = 'http://127.0.0.1:9/v1'): void {
  writeFileSync(
    configFile,
    stringifyYaml({
      server: { idempotency_lease_seconds: 2 },
      engine: { turn_lease_seconds: LEASE_SECONDS, sweep_interval_ms: 200 },
      egress: { allow: ['127.0.0.1/32'] },
      scripted: { tools: STOCK_PROGRAM },
      providers: { 'openai-compatible': { base_url: modelBaseUrl, api_key: 'test-key' } },
      agents: [DEMO_AGENT, { name: 'chatty', model: 'openai-compatible:local-model', instructions: 'Answer.' }],
    }),
  );
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, log: () => string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function idleThread(baton: BatonProcess, threadId: string): Promise<void> {
  await until(
    async () => ((await baton.request('GET', `/v1/threads/${threadId}`)).body.status === 'idle' ? true : undefined),
    `thread ${threadId} to become idle on the surviving replica`,
    () => baton.log,
  );
}

describe.each(databases)('a turn taken over by another replica on $name', (database) => {
  freshDatabasePerTest(database, processes, (url) => (databaseUrl = url));

  async function replicas(configFile: string, dataDir: string): Promise<[BatonProcess, BatonProcess]> {
    const starts = await Promise.allSettled([0, 1].map(() => BatonProcess.start({ dataDir, configFile, databaseUrl })));
    // Every replica that did start is killed after the test, even when its sibling failed to.
    const started = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    processes.push(...started);
    for (const start of starts) if (start.status === 'rejected') throw start.reason;
    return [started[0]!, started[1]!];
  }

  /** Sends the question to `doomed`, and kills it once its tool call reached the API. */
  async function cutOffMidCall(doomed: BatonProcess, api: LocalServer, threadId: string): Promise<void> {
    const inFlight = doomed.request('POST', `/v1/threads/${threadId}/messages`, { content: 'How much stock is left?' });
    inFlight.catch(() => {});
    await until(
      async () => (api.hits.length === 1 ? true : undefined),
      'the tool call to reach the API',
      () => doomed.log,
    );
    await doomed.kill();
  }

  async function transcript(baton: BatonProcess, threadId: string) {
    const messages = await baton.request('GET', `/v1/threads/${threadId}/messages`);
    expect(messages.status, messages.text).toBe(200);
    return messages.body.data as Array<{
      role: string;
      content: any;
      tool_calls?: Array<{ id: string; name: string }>;
    }>;
  }

  it('runs an idempotent server call cut off mid-run again, and records it once', async () => {
    const workspace = makeWorkspace();
    cleanups.push(() => workspace.remove());
    writeConfig(workspace.configFile);
    const api = await startHoldingApi();
    const [doomed, survivor] = await replicas(workspace.configFile, workspace.dataDir);
    const threadId = await stockThread(doomed, api, true);
    await cutOffMidCall(doomed, api, threadId);

    await idleThread(survivor, threadId);
    expect(api.hits).toHaveLength(2);
    const messages = await transcript(survivor, threadId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const [call] = messages[1]!.tool_calls!;
    expect(call).toMatchObject({ name: 'getStock' });
    expect(messages[3]!.content).toContain('Done:');
    const ledger = await survivor.request('GET', `/v1/tool-calls?thread_id=${threadId}`);
    expect(ledger.body.data).toHaveLength(1);
    expect(ledger.body.data[0]).toMatchObject({ id: call!.id, state: 'completed', submitted_by: 'baton:server' });
  }, 90_000);

  it('reports a non-idempotent server call cut off mid-run as an unknown outcome, and the model goes on', async () => {
    const workspace = makeWorkspace();
    cleanups.push(() => workspace.remove());
    writeConfig(workspace.configFile);
    const api = await startHoldingApi();
    const [doomed, survivor] = await replicas(workspace.configFile, workspace.dataDir);
    const threadId = await stockThread(doomed, api, false);
    await cutOffMidCall(doomed, api, threadId);

    await idleThread(survivor, threadId);
    expect(api.hits).toHaveLength(1);
    const messages = await transcript(survivor, threadId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[3]!.content).toContain('Failed:');
    expect(messages[3]!.content).toContain('whether it took effect is unknown');
    const ledger = await survivor.request('GET', `/v1/tool-calls?thread_id=${threadId}`);
    expect(ledger.body.data).toHaveLength(1);
    expect(ledger.body.data[0]).toMatchObject({ state: 'failed', submitted_by: 'baton:recovery' });
  }, 90_000);

  it('asks the model again when its replica died mid-step, answers once, and answers the retried request', async () => {
    const fake = await startChatCompletionsFake((view) => ({ text: `Answer to: ${view.lastUserText ?? ''}` }));
    cleanups.push(() => fake.close());
    const model = await startHoldingModel(fake);
    const workspace = makeWorkspace();
    cleanups.push(() => workspace.remove());
    writeConfig(workspace.configFile, model.url);
    const [doomed, survivor] = await replicas(workspace.configFile, workspace.dataDir);
    const thread = await doomed.request('POST', '/v1/threads', { agent: 'chatty' });
    expect(thread.status, thread.text).toBe(200);
    const threadId = thread.body.id as string;
    const key = { 'idempotency-key': `hello-${threadId}` };
    const message = { content: 'hello there', stream: true };
    doomed.request('POST', `/v1/threads/${threadId}/messages`, message, key).catch(() => {});
    await until(
      async () => (model.held() === 1 ? true : undefined),
      'the model call to be held',
      () => doomed.log,
    );
    await doomed.kill();

    // The client retries its request with the same key on the other replica: once the dead
    // replica's hold on the key lapsed, the retry rejoins the turn it started (taken over by now,
    // or soon) and streams its reply, without sending the message a second time.
    const retried = await survivor.request('POST', `/v1/threads/${threadId}/messages`, message, key);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('content-type')).toContain('text/event-stream');
    const completed = /event: message\.completed\ndata: (.*)\n/.exec(retried.text);
    expect(completed, retried.text).not.toBeNull();
    expect(JSON.parse(completed![1]!).choices[0].message.content).toBe('Answer to: hello there');
    await idleThread(survivor, threadId);
    expect(fake.requests).toHaveLength(1);
    expect(fake.rejections).toEqual([]);
    const messages = await transcript(survivor, threadId);
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'hello there'],
      ['assistant', 'Answer to: hello there'],
    ]);
  }, 90_000);
});
