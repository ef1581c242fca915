/**
 * The harness of the Responses bad-input tests (test/responses/bad-input*.test.ts): a Baton on a
 * SQLite file with a small body limit, a second read-only connection to count rows behind the
 * server's back, and snapshots of everything a refused request must leave alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { startTestBaton, type TestBaton, type TestResponse } from './test-baton.ts';
import { testPrograms, weatherAgent } from './test-agents.ts';

export const getWeather = {
  type: 'function',
  name: 'get_weather',
  description: 'Get current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export const REFUND_REQUEST = 'I need approval to process a $500 refund';
export const BODY_LIMIT = 64 * 1024;

/** Every table that a request could add to; a refused request must not change any count. */
const TABLES = [
  'conversations',
  'turns',
  'items',
  'ledger_entries',
  'responses',
  'queued_inputs',
  'agents',
  'agent_versions',
] as const;

export function output(callId: string, text = 'ok') {
  return { type: 'function_call_output', call_id: callId, output: text };
}

/** The OpenAI error shape, exactly the four standard keys present (Baton may add details after them). */
export function expectError(
  response: TestResponse,
  status: number,
  expected: { code: string; param?: string | null; message?: string | RegExp },
) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toHaveProperty('error');
  const error = response.body.error;
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.type).toBe('invalid_request_error');
  expect(error).toHaveProperty('param');
  expect(error.param === null || typeof error.param === 'string').toBe(true);
  expect(error.code).toBe(expected.code);
  if (expected.param !== undefined) expect(error.param).toBe(expected.param);
  if (typeof expected.message === 'string') expect(error.message).toBe(expected.message);
  else if (expected.message) expect(error.message).toMatch(expected.message);
}

/**
 * A Baton for the bad-input tests, started by `start()` (call it in `beforeAll`): the functions are
 * ready to destructure at once and work once the server is up.
 */
export function badInputHarness() {
  let server: TestBaton;
  let directory: string;
  let db: Database.Database;

  async function start(): Promise<TestBaton> {
    directory = mkdtempSync(join(tmpdir(), 'baton-responses-bad-input-'));
    const filename = join(directory, 'baton.db');
    server = await startTestBaton(
      { bodyLimitBytes: BODY_LIMIT, scripted: testPrograms, agents: [DEMO_AGENT, weatherAgent] },
      { store: { kind: 'sqlite', filename } },
    );
    // A second, read-only connection: counts rows without going through the server.
    db = new Database(filename, { readonly: true, fileMustExist: true });
    // The implicit agent behind `scripted:auto` is created by its first use; create it now, so the
    // row counts below only move when a refused request wrote something.
    const warmUp = await post({ model: 'scripted:auto', input: 'hello' });
    expect(warmUp.status).toBe(200);
    return server;
  }

  async function close(): Promise<void> {
    db?.close();
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  }

  function post(body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    return server.request('POST', '/v1/responses', body, headers);
  }

  function rowCounts(): Record<string, number> {
    return Object.fromEntries(
      TABLES.map((table) => [table, (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n]),
    );
  }

  /** What a refused request must leave alone: the responses, their conversation, its ledger, every table's size. */
  async function snapshot(responseIds: string[], conversationId: string) {
    const responses = await Promise.all(responseIds.map((id) => server.request('GET', `/v1/responses/${id}`)));
    const thread = await server.request('GET', `/v1/threads/${conversationId}`);
    const messages = await server.request('GET', `/v1/threads/${conversationId}/messages`);
    const calls = await server.request('GET', `/v1/tool-calls?thread_id=${conversationId}`);
    for (const response of [...responses, thread, messages, calls]) expect(response.status).toBe(200);
    return {
      responses: responses.map((response) => response.body),
      thread: thread.body,
      messages: messages.body,
      calls: calls.body,
      rows: rowCounts(),
    };
  }

  /** For requests that would start a conversation: nothing new anywhere (no conversation, call, agent, response). */
  async function globalSnapshot() {
    const calls = await server.request('GET', '/v1/tool-calls?limit=100');
    const agents = await server.request('GET', '/v1/agents?limit=100');
    expect(calls.status).toBe(200);
    expect(agents.status).toBe(200);
    return { calls: calls.body, agents: agents.body, rows: rowCounts() };
  }

  /** A response paused on `request_approval` (the demo agent): one pending call. */
  async function pausedResponse(model = 'refund-desk', input = REFUND_REQUEST) {
    const response = await post({ model, input });
    expect(response.status).toBe(200);
    expect(response.body.baton_run.status).toBe('requires_action');
    const calls = (response.body.output as { type: string; call_id: string }[])
      .filter((item) => item.type === 'function_call')
      .map((item) => item.call_id);
    expect(calls.length).toBeGreaterThan(0);
    return { id: response.body.id as string, conversationId: response.body.baton_run.conversation_id as string, calls };
  }

  async function ledgerState(callId: string): Promise<string> {
    const entry = await server.request('GET', `/v1/tool-calls/${callId}`);
    expect(entry.status).toBe(200);
    return entry.body.state as string;
  }

  return { start, close, post, snapshot, globalSnapshot, pausedResponse, ledgerState };
}
