import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatonProcess, makeWorkspace, type JsonResponse } from './baton-process.ts';
import { fireTogether } from '../helpers/fire-together.ts';
import { processDatabases } from './process-databases.ts';

/**
 * The same races as concurrent-submits.test.ts, but real ones: two `baton serve` processes on one
 * database (a SQLite data directory, and a PostgreSQL database), the 50 submits split between them. Each process reads the call as
 * pending on its own, so only the database's conditional updates keep it to one resolution.
 */

const SEED = 'I need approval to process a $500 refund';
const APPROVED = '{"approved": true, "approved_by": "manager@company.com"}';
const N = 50;
const LOSER_CODES = ['tool_call_already_resolved', 'concurrent_update', 'thread_not_pending'];

const servers: BatonProcess[] = [];

function server(index: number): BatonProcess {
  return servers[index % servers.length]!;
}

async function pendingThread(): Promise<{ threadId: string; callId: string }> {
  const created = await server(0).request('POST', '/v1/threads', { agent: 'refund-desk' });
  expect(created.status, created.text).toBe(200);
  const threadId = created.body.id as string;
  const first = await server(0).request('POST', `/v1/threads/${threadId}/messages`, { role: 'user', content: SEED });
  expect(first.status, first.text).toBe(200);
  return { threadId, callId: first.body.choices[0].message.tool_calls[0].id as string };
}

const together = fireTogether;

/** Checked through both processes: each sees one tool_result, one final answer, an idle thread. */
async function expectResumedOnce(threadId: string, callId: string): Promise<void> {
  for (const baton of servers) {
    const thread = await baton.request('GET', `/v1/threads/${threadId}`);
    expect(thread.body.status).toBe('idle');
    const messages = await baton.request('GET', `/v1/threads/${threadId}/messages`);
    const data = messages.body.data as Array<{ role: string; content: any; tool_calls?: unknown[] }>;
    expect(data.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const results = data.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
    expect(results).toEqual([expect.objectContaining({ type: 'tool_result', tool_call_id: callId })]);
    expect(data.filter((message) => message.role === 'assistant' && message.tool_calls === undefined)).toHaveLength(1);
    const entry = await baton.request('GET', `/v1/tool-calls/${callId}`);
    expect(entry.body.state).toBe('completed');
  }
}

function expectOneWinner(responses: JsonResponse[]): JsonResponse {
  const winners = responses.filter((response) => response.status === 200);
  expect(winners, JSON.stringify(responses.map((response) => response.status))).toHaveLength(1);
  for (const loser of responses.filter((response) => response.status !== 200)) {
    expect(loser.status, loser.text).toBe(409);
    expect(LOSER_CODES, loser.text).toContain(loser.body?.error?.code);
  }
  return winners[0]!;
}

describe.each(await processDatabases())(
  'concurrent submits across two processes sharing one $name database',
  (database) => {
    let workspace: ReturnType<typeof makeWorkspace> | undefined;
    let drop = async () => {};

    beforeAll(async () => {
      workspace = makeWorkspace('baton-multi-process-');
      const opened = await database.open();
      drop = opened.drop;
      const options = { dataDir: workspace.dataDir, configFile: workspace.configFile, databaseUrl: opened.databaseUrl };
      // The first start creates and migrates the database; the second joins it.
      servers.push(await BatonProcess.start(options));
      servers.push(await BatonProcess.start(options));
    }, 60_000);

    afterAll(async () => {
      await Promise.all(servers.splice(0).map((server) => server.kill('SIGTERM')));
      await drop();
      workspace?.remove();
    });

    it('SAME Idempotency-Key on the ledger, split across processes: all 200, identical, 49 replays', async () => {
      const { threadId, callId } = await pendingThread();
      const responses = await together(N, (index) =>
        server(index).request(
          'POST',
          `/v1/tool-calls/${callId}/result`,
          { content: APPROVED },
          { 'idempotency-key': `mp-same-${callId}` },
        ),
      );
      for (const response of responses) expect(response.status, response.text).toBe(200);
      expect(new Set(responses.map((response) => response.text)).size).toBe(1);
      expect(responses.filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(
        N - 1,
      );
      expect(responses[0]!.body.resumed).toBe(true);
      await expectResumedOnce(threadId, callId);
    }, 60_000);

    it('thread messages WITHOUT keys, split across processes: one 200, 49 409', async () => {
      const { threadId, callId } = await pendingThread();
      const message = { role: 'user', content: [{ type: 'tool_result', tool_call_id: callId, content: APPROVED }] };
      const responses = await together(N, (index) =>
        server(index).request('POST', `/v1/threads/${threadId}/messages`, message),
      );
      const winner = expectOneWinner(responses);
      expect(winner.body.choices[0].finish_reason).toBe('stop');
      await expectResumedOnce(threadId, callId);
    }, 60_000);

    it('50 DIFFERENT Idempotency-Keys on the ledger, split across processes: one 200, 49 409', async () => {
      const { threadId, callId } = await pendingThread();
      const responses = await together(N, (index) =>
        server(index).request(
          'POST',
          `/v1/tool-calls/${callId}/result`,
          { content: APPROVED },
          { 'idempotency-key': `mp-${callId}-${index}` },
        ),
      );
      const winner = expectOneWinner(responses);
      expect(winner.body.resumed).toBe(true);
      await expectResumedOnce(threadId, callId);
    }, 60_000);
  },
);
