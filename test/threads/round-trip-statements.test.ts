import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqlStats, stopSqlStats, type SqlStat } from '../../bench/sql-stats.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * The SQL a Threads round trip sends (issue 22: at most 15 statements, one commit per request),
 * seen by the bench's wrapper of better-sqlite3's statements in this test's own process. Reads of
 * the per-process caches (agents, apps with webhooks) refresh after a second and are left out.
 */
describe('Threads API: the statements of a round trip', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton();
  });
  afterAll(async () => server.close());

  const CACHE_REFRESH = /from "(agents|webhook_endpoints)"/;

  /** The request's statements in SQL order of first use, each as many times as it ran. */
  async function statementsOf(send: () => Promise<unknown>): Promise<string[]> {
    startSqlStats();
    let stats: SqlStat[];
    try {
      await send();
    } finally {
      stats = stopSqlStats();
    }
    return stats.flatMap((stat) => (CACHE_REFRESH.test(stat.sql) ? [] : Array<string>(stat.calls).fill(stat.sql)));
  }

  it('reads the paused conversation, its turn and its calls in one statement, and sends 15 in all', async () => {
    const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id as string;
    const path = `/v1/threads/${thread}/messages`;
    const message = { role: 'user', content: 'I need approval to process a $500 refund' };
    const resultFor = (callId: string) => ({
      role: 'user',
      content: [{ type: 'tool_result', tool_call_id: callId, content: '{"approved": true}' }],
    });
    // A round trip first: statements are prepared and caches filled once.
    const warm = await server.request('POST', path, message);
    await server.request('POST', path, resultFor(warm.body.choices[0].message.tool_calls[0].id));

    let callId = '';
    const paused = await statementsOf(async () => {
      const response = await server.request('POST', path, message);
      expect(response.body.choices[0].finish_reason).toBe('tool_use');
      callId = response.body.choices[0].message.tool_calls[0].id;
    });
    const answered = await statementsOf(async () => {
      const response = await server.request('POST', path, resultFor(callId));
      expect(response.body.choices[0].finish_reason).toBe('stop');
    });

    const reads = answered.filter((sql) => sql.startsWith('select'));
    expect(reads, answered.join('\n')).toHaveLength(1);
    expect(reads[0]).toMatch(/from "conversations" left join "turns" .* left join "ledger_entries"/);
    for (const request of [paused, answered]) {
      expect(request.filter((sql) => sql === 'commit')).toHaveLength(1);
    }
    expect(paused.length + answered.length, [...paused, ...answered].join('\n')).toBeLessThanOrEqual(15);
  });
});
