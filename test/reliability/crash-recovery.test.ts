import { afterEach, describe, expect, it } from 'vitest';
import { BatonProcess, makeWorkspace } from './baton-process.ts';
import { freshDatabasePerTest, processDatabases } from './process-databases.ts';

/**
 * A pending tool call survives a hard crash: the real `baton serve` is SIGKILLed while a thread
 * waits for a client-executed result, restarted on the same data directory, and the thread is
 * still pending on the same call and resumes when the result arrives.
 */

const SEED = 'I need approval to process a $500 refund';
const APPROVED = '{"approved": true, "approved_by": "manager@company.com"}';

const processes: BatonProcess[] = [];
const workspaces: Array<{ remove(): void }> = [];

afterEach(async () => {
  // Runs even when an assertion failed: no server outlives its test, no temp dir is left behind.
  await Promise.all(processes.splice(0).map((baton) => baton.kill()));
  for (const workspace of workspaces.splice(0)) workspace.remove();
});

function workspace() {
  const created = makeWorkspace();
  workspaces.push(created);
  return created;
}

/** The database of the running test: undefined for SQLite in the data directory. */
let databaseUrl: string | undefined;
const databases = await processDatabases();

async function start(dataDir: string, configFile: string): Promise<BatonProcess> {
  const baton = await BatonProcess.start({ dataDir, configFile, databaseUrl });
  processes.push(baton);
  return baton;
}

/** Creates a thread and sends the seed message; returns the thread and its one pending call. */
async function pendingThread(baton: BatonProcess): Promise<{ threadId: string; callId: string }> {
  const created = await baton.request('POST', '/v1/threads', { agent: 'refund-desk' });
  expect(created.status, created.text).toBe(200);
  const threadId = created.body.id as string;
  const first = await baton.request('POST', `/v1/threads/${threadId}/messages`, { role: 'user', content: SEED });
  expect(first.status, first.text).toBe(200);
  expect(first.body.choices[0].finish_reason).toBe('tool_use');
  const calls = first.body.choices[0].message.tool_calls as Array<{ id: string; name: string }>;
  expect(calls).toHaveLength(1);
  expect(calls[0]?.name).toBe('request_approval');
  return { threadId, callId: calls[0]!.id };
}

async function expectPending(baton: BatonProcess, threadId: string, callId: string): Promise<void> {
  const thread = await baton.request('GET', `/v1/threads/${threadId}`);
  expect(thread.status, thread.text).toBe(200);
  expect(thread.body.status).toBe('pending');
  expect(thread.body.pending_tool_calls.map((call: { id: string }) => call.id)).toEqual([callId]);
  const entry = await baton.request('GET', `/v1/tool-calls/${callId}`);
  expect(entry.status, entry.text).toBe(200);
  expect(entry.body).toMatchObject({
    id: callId,
    state: 'pending',
    thread_id: threadId,
    name: 'request_approval',
    submitted_at: null,
    result: null,
  });
}

async function expectIdleWithOneAnswer(baton: BatonProcess, threadId: string, callId: string): Promise<void> {
  const thread = await baton.request('GET', `/v1/threads/${threadId}`);
  expect(thread.body.status).toBe('idle');
  expect(thread.body.pending_tool_calls).toEqual([]);
  const messages = await baton.request('GET', `/v1/threads/${threadId}/messages`);
  expect(messages.status, messages.text).toBe(200);
  const data = messages.body.data as Array<{ role: string; content: any; tool_calls?: Array<{ id: string }> }>;
  expect(data.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  expect(data[1]?.tool_calls?.map((call) => call.id)).toEqual([callId]);
  expect(data[2]?.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_call_id: callId })]);
  expect(data[3]?.content).toContain('manager@company.com');
}

describe.each(databases)('crash recovery of pending tool calls (real process, SIGKILL) on $name', (database) => {
  freshDatabasePerTest(database, processes, (url) => (databaseUrl = url));

  it('keeps a pending call across SIGKILL and resumes it after restart with a tool_result message', async () => {
    const { dataDir, configFile } = workspace();
    const first = await start(dataDir, configFile);
    const { threadId, callId } = await pendingThread(first);
    await expectPending(first, threadId, callId);

    await first.kill('SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = await start(dataDir, configFile);
    await expectPending(second, threadId, callId);

    const answer = await second.request('POST', `/v1/threads/${threadId}/messages`, {
      role: 'user',
      content: [{ type: 'tool_result', tool_call_id: callId, content: APPROVED }],
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.thread_id).toBe(threadId);
    expect(answer.body.choices[0].finish_reason).toBe('stop');
    expect(answer.body.choices[0].message.tool_calls).toBeUndefined();
    expect(answer.body.choices[0].message.content).toContain('manager@company.com');

    await expectIdleWithOneAnswer(second, threadId, callId);
    const entry = await second.request('GET', `/v1/tool-calls/${callId}`);
    expect(entry.body.state).toBe('completed');
    expect(entry.body.submitted_at).not.toBeNull();
  }, 60_000);

  it('keeps two pending threads apart across SIGKILL: one answered via the ledger, one via the thread', async () => {
    const { dataDir, configFile } = workspace();
    const first = await start(dataDir, configFile);
    const a = await pendingThread(first);
    const b = await pendingThread(first);
    expect(a.callId).not.toBe(b.callId);

    await first.kill('SIGKILL');
    const second = await start(dataDir, configFile);

    await expectPending(second, a.threadId, a.callId);
    await expectPending(second, b.threadId, b.callId);
    const pendingList = await second.request('GET', '/v1/tool-calls?state=pending');
    expect(pendingList.status, pendingList.text).toBe(200);
    expect(pendingList.body.data.map((entry: { id: string }) => entry.id).sort()).toEqual([a.callId, b.callId].sort());

    // A: one call at a time through the ledger, with an Idempotency-Key.
    const viaLedger = await second.request(
      'POST',
      `/v1/tool-calls/${a.callId}/result`,
      { content: APPROVED },
      { 'idempotency-key': 'crash-ledger-a' },
    );
    expect(viaLedger.status, viaLedger.text).toBe(200);
    expect(viaLedger.body.resumed).toBe(true);
    expect(viaLedger.body.tool_call).toMatchObject({ id: a.callId, state: 'completed' });
    expect(viaLedger.body.response.thread_id).toBe(a.threadId);
    expect(viaLedger.body.response.choices[0].finish_reason).toBe('stop');
    expect(viaLedger.body.response.choices[0].message.content).toContain('manager@company.com');
    await expectIdleWithOneAnswer(second, a.threadId, a.callId);

    // B was not touched by A's answer.
    await expectPending(second, b.threadId, b.callId);

    // Crash again: A's stored idempotent response and B's pending call both survive.
    await second.kill('SIGKILL');
    const third = await start(dataDir, configFile);

    const replay = await third.request(
      'POST',
      `/v1/tool-calls/${a.callId}/result`,
      { content: APPROVED },
      { 'idempotency-key': 'crash-ledger-a' },
    );
    expect(replay.status, replay.text).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(viaLedger.text);

    await expectPending(third, b.threadId, b.callId);
    const viaThread = await third.request('POST', `/v1/threads/${b.threadId}/messages`, {
      role: 'user',
      content: [{ type: 'tool_result', tool_call_id: b.callId, content: APPROVED }],
    });
    expect(viaThread.status, viaThread.text).toBe(200);
    expect(viaThread.body.choices[0].finish_reason).toBe('stop');
    await expectIdleWithOneAnswer(third, b.threadId, b.callId);
    await expectIdleWithOneAnswer(third, a.threadId, a.callId);

    const stillPending = await third.request('GET', '/v1/tool-calls?state=pending');
    expect(stillPending.body.data).toEqual([]);
  }, 90_000);
});
