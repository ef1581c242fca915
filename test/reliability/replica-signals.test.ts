import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/postgres-database.ts';
import { SseStream } from '../helpers/sse-stream.ts';
import { BatonProcess, makeWorkspace, PROCESS_ADMIN_KEY } from './baton-process.ts';

/**
 * Two `baton serve` replicas on one PostgreSQL database: what one does, the other learns by
 * LISTEN/NOTIFY within a second (a revoked key, a new pending call on a live event stream), and
 * periodic work has one leader, whose death hands the lead to the survivor.
 */

const SEED = 'I need approval to process a $500 refund';
const unavailable = await postgresUnavailable();

async function until(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(unavailable !== null)('replicas on one PostgreSQL database', () => {
  const workspace = makeWorkspace('baton-replicas-');
  let database: TestDatabase;
  let first: BatonProcess;
  let second: BatonProcess;

  beforeAll(async () => {
    database = await createTestDatabase('baton_replicas');
    // A short deadline, to see which replica expires calls.
    writeFileSync(
      workspace.configFile,
      stringifyYaml({ agents: [{ ...DEMO_AGENT, name: 'quick-desk', tool_timeout_seconds: 3 }, DEMO_AGENT] }),
    );
    const options = { dataDir: workspace.dataDir, configFile: workspace.configFile, databaseUrl: database.url };
    first = await BatonProcess.start(options);
    second = await BatonProcess.start(options);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([first?.kill(), second?.kill()]);
    await database?.drop();
    workspace.remove();
  });

  it('a key revoked through one replica stops authenticating on the other within a second', async () => {
    const created = await first.request('POST', '/v1/api-keys', { name: 'temp', role: 'member' });
    expect(created.status, created.text).toBe(201);
    const auth = { authorization: `Bearer ${created.body.key as string}` };
    // The second replica has the key in its cache now.
    expect((await second.request('GET', '/v1/threads', undefined, auth)).status).toBe(200);

    const revoked = await first.request('DELETE', `/v1/api-keys/${created.body.id as string}`);
    expect(revoked.status, revoked.text).toBe(200);
    const elapsed = await until(
      async () => (await second.request('GET', '/v1/threads', undefined, auth)).status === 401,
      1_000,
    );
    expect(elapsed).toBeLessThan(1_000);
  });

  it('an agent updated through one replica is used by the next turn on the other', async () => {
    const created = await first.request('POST', '/v1/agents', {
      name: 'greeter',
      model: 'scripted:auto',
      instructions: 'v1',
    });
    expect(created.status, created.text).toBe(201);
    const updated = await first.request('PUT', '/v1/agents/greeter', { model: 'scripted:auto', instructions: 'v2' });
    expect(updated.status, updated.text).toBe(200);
    const thread = await second.request('POST', '/v1/threads', { agent: 'greeter' });
    const reply = await second.request('POST', `/v1/threads/${thread.body.id as string}/messages`, {
      content: 'hello',
    });
    expect(reply.status, reply.text).toBe(200);
    // The turn the second replica ran pinned version 2, the one written through the first.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ agent_version: number }>('select agent_version from turns where id = $1', [
        reply.body.turn_id,
      ]);
      expect(rows[0]?.agent_version).toBe(2);
    } finally {
      await db.end();
    }
  });

  it('a background response started on one replica is read, and continued, on the other', async () => {
    const started = await first.request('POST', '/v1/responses', {
      model: 'refund-desk',
      input: SEED,
      background: true,
    });
    expect(started.status, started.text).toBe(200);
    let paused: any;
    await until(async () => {
      paused = (await second.request('GET', `/v1/responses/${started.body.id as string}`)).body;
      return paused.baton_run?.status === 'requires_action';
    }, 5_000);
    const call = (paused.output as { type: string; call_id: string }[]).find((item) => item.type === 'function_call')!;
    const resumed = await second.request('POST', '/v1/responses', {
      model: 'refund-desk',
      previous_response_id: started.body.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"approved": true}' }],
    });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.status).toBe('completed');
    expect(resumed.body.baton_run.status).toBe('completed');
  });

  it('a pending call made through one replica reaches the other’s event stream within a second', async () => {
    const stream = await SseStream.open(`${second.url}/v1/tool-calls/events`, {
      authorization: `Bearer ${PROCESS_ADMIN_KEY}`,
    });
    try {
      await stream.next((event) => event.event === 'ready');
      const thread = await first.request('POST', '/v1/threads', { agent: 'refund-desk' });
      const paused = await first.request('POST', `/v1/threads/${thread.body.id as string}/messages`, {
        content: SEED,
      });
      const answeredAt = Date.now();
      const callId = paused.body.choices[0].message.tool_calls[0].id as string;
      // The safety-net poll is 10 s apart on PostgreSQL: arriving within 1 s means the notice did it.
      await stream.next((event) => event.event === 'tool_call.created' && event.data.id === callId, 1_000);
      expect(Date.now() - answeredAt).toBeLessThan(1_000);
    } finally {
      stream.close();
    }
  });

  it('a replica whose signals session is cut reconnects: notices reach it again within seconds', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const cut = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'baton-signals'",
      );
      expect(cut.rowCount).toBe(2);
    } finally {
      await admin.end();
    }
    const created = await first.request('POST', '/v1/api-keys', { name: 'after-cut', role: 'member' });
    const auth = { authorization: `Bearer ${created.body.key as string}` };
    // Both replicas reconnect within a second or so; then a revocation through one reaches the other.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await second.request('GET', '/v1/threads', undefined, auth)).status).toBe(200);
    await first.request('DELETE', `/v1/api-keys/${created.body.id as string}`);
    await until(async () => (await second.request('GET', '/v1/threads', undefined, auth)).status === 401, 1_000);
  });

  it('one replica leads the sweeps; when it dies, the other takes over and applies the deadlines', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const leaders = async () =>
      Number(
        (
          await client.query<{ n: string }>(
            // This database's locks only: other tests' replicas hold theirs on the same server.
            `select count(*) as n from pg_locks where locktype = 'advisory' and granted
              and database = (select oid from pg_database where datname = current_database())`,
          )
        ).rows[0]?.n,
      );
    try {
      await until(async () => (await leaders()) === 1, 5_000);

      const thread = await second.request('POST', '/v1/threads', { agent: 'quick-desk' });
      const paused = await second.request('POST', `/v1/threads/${thread.body.id as string}/messages`, {
        content: SEED,
      });
      const callId = paused.body.choices[0].message.tool_calls[0].id as string;
      // The first replica started first and leads; it dies before the call's 3 s deadline.
      await first.kill('SIGKILL');
      await until(
        async () => (await second.request('GET', `/v1/tool-calls/${callId}`)).body.state === 'expired',
        8_000,
      );
      expect(await leaders()).toBe(1);
    } finally {
      await client.end();
    }
  }, 30_000);
});
