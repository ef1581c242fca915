import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import type { Store } from '../../src/store/store.ts';
import { fireTogether } from '../helpers/fire-together.ts';

/**
 * Fifty clients answer the same pending tool call at the same moment. Whatever the path (ledger
 * or thread message) and whatever the keys (one shared Idempotency-Key, none, fifty different
 * ones), the call is resolved once and the turn resumes once.
 */

const SEED = 'I need approval to process a $500 refund';
const APPROVED = '{"approved": true, "approved_by": "manager@company.com"}';
const N = 50;
const LOSER_CODES = ['tool_call_already_resolved', 'concurrent_update', 'thread_not_pending'];

interface RawResponse {
  status: number;
  text: string;
  body: any;
  replayed: boolean;
}

let server: TestBaton;

/**
 * In-process SQLite answers every query without a real I/O wait, so a request can run from auth
 * to the committed resolution before the server even parses the next request: the 50 submits
 * then meet the "already resolved" pre-check one after another and the compare-and-set that
 * arbitrates a true race is never reached. The second mode delays every outer-store ledger read
 * by a macrotask, so all submits read the call as `pending` before any of them writes, which
 * is the interleaving of a slow database or of several processes.
 */
interface RaceSpy {
  /** Conditional resolutions attempted through the outer store (the ledger face's path). */
  resolveAttempts: number;
  /** Of those, how many found the call no longer pending (lost the compare-and-set). */
  resolveLost: number;
}

function widenRaceWindow(store: Store, spy: RaceSpy): void {
  const ledger = store.ledger;
  const get = ledger.get.bind(ledger);
  const resolve = ledger.resolve.bind(ledger);
  ledger.get = async (...args) => {
    const entry = await get(...args);
    await new Promise((done) => setTimeout(done, 5));
    return entry;
  };
  ledger.resolve = async (...args) => {
    spy.resolveAttempts += 1;
    const resolved = await resolve(...args);
    if (!resolved) spy.resolveLost += 1;
    return resolved;
  };
}

/** A POST with the raw body text kept, so replays can be compared byte for byte. */
async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON.
  }
  return {
    status: response.status,
    text,
    body: parsed,
    replayed: response.headers.get('idempotent-replayed') === 'true',
  };
}

async function pendingThread(): Promise<{ threadId: string; callId: string }> {
  const created = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
  expect(created.status).toBe(200);
  const threadId = created.body.id as string;
  const first = await server.request('POST', `/v1/threads/${threadId}/messages`, { role: 'user', content: SEED });
  expect(first.status).toBe(200);
  expect(first.body.choices[0].finish_reason).toBe('tool_use');
  return { threadId, callId: first.body.choices[0].message.tool_calls[0].id as string };
}

const together = fireTogether;

/** The thread resumed exactly once: one tool_result message for the call, one final answer, idle. */
async function expectResumedOnce(threadId: string, callId: string): Promise<void> {
  const thread = await server.request('GET', `/v1/threads/${threadId}`);
  expect(thread.body.status).toBe('idle');
  expect(thread.body.pending_tool_calls).toEqual([]);

  const messages = await server.request('GET', `/v1/threads/${threadId}/messages`);
  expect(messages.status).toBe(200);
  const data = messages.body.data as Array<{ role: string; content: any; tool_calls?: unknown[] }>;
  expect(data.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  const results = data.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content.filter((block: { type: string; tool_call_id?: string }) => block.type === 'tool_result')
      : [],
  );
  expect(results).toHaveLength(1);
  expect(results[0]).toMatchObject({ tool_call_id: callId, content: APPROVED });
  const finals = data.filter((message) => message.role === 'assistant' && message.tool_calls === undefined);
  expect(finals).toHaveLength(1);
  expect(finals[0]?.content).toContain('manager@company.com');

  // The turn that paused is the turn that completed; no second turn was started by a loser.
  const entry = await server.request('GET', `/v1/tool-calls/${callId}`);
  expect(entry.body.state).toBe('completed');
  expect(entry.body.result).toEqual({ content: APPROVED, is_error: false });
  const turnIds = new Set(data.map((message: any) => message.turn_id));
  expect(turnIds.size).toBe(1);
}

function expectOneWinner(responses: RawResponse[]): RawResponse {
  const statuses = responses.map((response) => response.status);
  const winners = responses.filter((response) => response.status === 200);
  const losers = responses.filter((response) => response.status !== 200);
  expect(winners, `statuses: ${JSON.stringify(statuses)}`).toHaveLength(1);
  expect(losers).toHaveLength(N - 1);
  for (const loser of losers) {
    expect(loser.status, loser.text).toBe(409);
    expect(LOSER_CODES, loser.text).toContain(loser.body?.error?.code);
  }
  return winners[0]!;
}

describe.each([
  { mode: 'as is', widen: false },
  { mode: 'with a widened race window (ledger reads delayed)', widen: true },
])('concurrent result submissions for one pending call, $mode', ({ widen }) => {
  const spy: RaceSpy = { resolveAttempts: 0, resolveLost: 0 };
  beforeAll(async () => {
    server = await startTestBaton();
    if (widen) widenRaceWindow(server.baton.store, spy);
  });
  afterAll(async () => server?.close());

  it('50 concurrent ledger submits with the SAME Idempotency-Key: one applies, 49 replay it', async () => {
    const { threadId, callId } = await pendingThread();
    const body = { content: APPROVED };
    const responses = await together(N, () =>
      post(`/v1/tool-calls/${callId}/result`, body, { 'idempotency-key': `same-key-${callId}` }),
    );

    for (const response of responses) expect(response.status, response.text).toBe(200);
    expect(new Set(responses.map((response) => response.text)).size).toBe(1);
    expect(responses.filter((response) => response.replayed)).toHaveLength(N - 1);
    expect(responses.filter((response) => !response.replayed)).toHaveLength(1);

    const first = responses[0]!.body;
    expect(first.resumed).toBe(true);
    expect(first.tool_call).toMatchObject({ id: callId, state: 'completed' });
    expect(first.response.choices[0].finish_reason).toBe('stop');

    // One resolution: the ledger keeps the submission the response reported, not a later one.
    const entry = await server.request('GET', `/v1/tool-calls/${callId}`);
    expect(entry.body.submitted_at).toBe(first.tool_call.submitted_at);
    expect(entry.body.submitted_at).not.toBeNull();
    await expectResumedOnce(threadId, callId);

    // A later retry still replays; a different body with the same key is refused.
    const retry = await post(`/v1/tool-calls/${callId}/result`, body, { 'idempotency-key': `same-key-${callId}` });
    expect(retry.replayed).toBe(true);
    expect(retry.text).toBe(responses[0]!.text);
    const reused = await post(
      `/v1/tool-calls/${callId}/result`,
      { content: '{"approved": false}' },
      { 'idempotency-key': `same-key-${callId}` },
    );
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
  });

  it('50 concurrent thread messages WITHOUT keys: one 200, 49 409, one resume', async () => {
    const { threadId, callId } = await pendingThread();
    const message = { role: 'user', content: [{ type: 'tool_result', tool_call_id: callId, content: APPROVED }] };
    const responses = await together(N, () => post(`/v1/threads/${threadId}/messages`, message));

    const winner = expectOneWinner(responses);
    expect(winner.body.choices[0].finish_reason).toBe('stop');
    expect(winner.body.choices[0].message.content).toContain('manager@company.com');
    await expectResumedOnce(threadId, callId);
  });

  it('50 concurrent ledger submits with 50 DIFFERENT Idempotency-Keys: one 200, 49 409, one resume', async () => {
    const { threadId, callId } = await pendingThread();
    spy.resolveAttempts = 0;
    spy.resolveLost = 0;
    const responses = await together(N, (index) =>
      post(`/v1/tool-calls/${callId}/result`, { content: APPROVED }, { 'idempotency-key': `key-${callId}-${index}` }),
    );

    const winner = expectOneWinner(responses);
    if (widen) {
      // The race really happened: several submits passed the pending check and lost the conditional update.
      expect(spy.resolveLost, JSON.stringify(spy)).toBeGreaterThan(0);
      expect(spy.resolveAttempts - spy.resolveLost).toBe(1);
    }
    expect(responses.filter((response) => response.replayed)).toEqual([]);
    expect(winner.body.resumed).toBe(true);
    expect(winner.body.response.choices[0].finish_reason).toBe('stop');
    const entry = await server.request('GET', `/v1/tool-calls/${callId}`);
    expect(entry.body.submitted_at).toBe(winner.body.tool_call.submitted_at);
    await expectResumedOnce(threadId, callId);

    // Each loser's 409 was stored under its own key: a retry replays the 409, it does not apply.
    const loserIndex = responses.findIndex((response) => response.status === 409);
    const retry = await post(
      `/v1/tool-calls/${callId}/result`,
      { content: APPROVED },
      { 'idempotency-key': `key-${callId}-${loserIndex}` },
    );
    expect(retry.status).toBe(409);
    expect(retry.replayed).toBe(true);
  });

  it('50 concurrent thread messages with 50 DIFFERENT Idempotency-Keys: one 200, 49 409, one resume', async () => {
    const { threadId, callId } = await pendingThread();
    const message = { role: 'user', content: [{ type: 'tool_result', tool_call_id: callId, content: APPROVED }] };
    const responses = await together(N, (index) =>
      post(`/v1/threads/${threadId}/messages`, message, { 'idempotency-key': `thread-key-${callId}-${index}` }),
    );

    const winner = expectOneWinner(responses);
    expect(winner.body.choices[0].finish_reason).toBe('stop');
    await expectResumedOnce(threadId, callId);
  });

  it('50 concurrent thread messages with the SAME Idempotency-Key: all 200, identical, 49 replays', async () => {
    const { threadId, callId } = await pendingThread();
    const message = { role: 'user', content: [{ type: 'tool_result', tool_call_id: callId, content: APPROVED }] };
    const responses = await together(N, () =>
      post(`/v1/threads/${threadId}/messages`, message, { 'idempotency-key': `thread-same-${callId}` }),
    );

    for (const response of responses) expect(response.status, response.text).toBe(200);
    expect(new Set(responses.map((response) => response.text)).size).toBe(1);
    expect(responses.filter((response) => response.replayed)).toHaveLength(N - 1);
    expect(responses[0]!.body.choices[0].finish_reason).toBe('stop');
    await expectResumedOnce(threadId, callId);
  });
});
