import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { DeadlineSweeper } from '../../src/server/deadline-sweeper.ts';
import { APP_PURGE_TABLES } from '../../src/store/kysely/app-purge.ts';
import type { AppPurgeBatch } from '../../src/store/store.ts';
import { rowsMentioning, tableReadingBackends, type Tables } from './table-reading-backends.ts';
import type { TestBaton, TestResponse } from '../helpers/test-baton.ts';

/**
 * Purging an app (issue 21) on SQLite and PostgreSQL. DeleteApp tombstones the app in one short
 * transaction (its keys get 401 at once, its name is a 404 and free again), then deletes every row
 * of it table by table in bounded batches, and records an `app.purged` audit event that outlives
 * it, with who deleted it, when, and the rows removed by table; an operator lists it with
 * `?app_id=`. A purge stopped midway (a process dying) leaves the app deleted, and the sweeper's
 * leader finishes it, counting every row. Bad input gets a precise 4xx and changes nothing. The
 * tables are listed from the database itself, so a table the purge forgets fails here.
 */

const LOCATION = 'projects/default/locations/global';
const REFUND = 'I need approval to process a $500 refund';
/** What Baton generates as ids (`conv_…`, `key_…`): client-chosen names like `s-1` could match other apps' rows. */
const GENERATED_ID = /^[a-z]+_[A-Za-z0-9]{16,}$/;
const LINKS = ['id', 'app_id', 'conversation_id', 'turn_id', 'agent_id', 'endpoint_id', 'event_id', 'group_id'];
const backends = await tableReadingBackends('baton-app-purge');

interface AuditEvent {
  action: string;
  actor: string | null;
  app_id: string;
  target: string | null;
  counts: Record<string, number>;
  details: Record<string, unknown>;
  created_at: string;
}

/** The ids of everything an app owns: rows with its `app_id`, and rows of its conversations, turns and agents. */
function idsOf(all: Tables, appId: string): string[] {
  const ids = new Set([appId]);
  for (let pass = 0; pass < 3; pass += 1) {
    for (const [table, rows] of Object.entries(all)) {
      if (table === 'audit_events') continue;
      for (const row of rows) {
        const linked =
          row.app_id === appId ||
          (table === 'apps' && row.id === appId) ||
          ['conversation_id', 'turn_id', 'agent_id'].some((key) => ids.has(String(row[key])));
        if (!linked) continue;
        for (const key of LINKS) {
          const value = row[key];
          if (typeof value === 'string' && GENERATED_ID.test(value)) ids.add(value);
        }
      }
    }
  }
  return [...ids];
}

/** Rows mentioning `ids`, counted by table. */
function countsByTable(all: Tables, ids: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rowsMentioning(all, ids)) {
    const table = row.slice(0, row.indexOf(':'));
    counts[table] = (counts[table] ?? 0) + 1;
  }
  return counts;
}

describe.each(backends)('app purge on $name', (backend) => {
  let server: TestBaton;
  let tables: () => Promise<Tables>;
  let close: () => Promise<void>;
  let operatorKeyId: string;

  beforeAll(async () => {
    ({ server, tables, close } = await backend.start());
    operatorKeyId = (await server.request('GET', '/v1/me')).body.key.id as string;
  }, 60_000);
  afterAll(async () => close?.());

  function as(key: string) {
    return (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<TestResponse> => server.request(method, path, body, { authorization: `Bearer ${key}`, ...headers });
  }

  function ok(response: TestResponse, what: string): TestResponse {
    expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
    return response;
  }

  /**
   * A new app with rows in every table an app has: native and CES agents (one edited: two
   * versions), a secret, a tool, a second key, a webhook endpoint with events in the outbox and a
   * delivery, conversations on Threads (a call answered under an Idempotency-Key, a call pending,
   * input queued), Responses, Chat Completions and a CES session.
   */
  async function populatedApp(name: string): Promise<{ appId: string; admin: string; member: string }> {
    const created = ok(await server.request('POST', '/v1/apps', { name }), 'create app');
    const appId = created.body.id as string;
    const admin = created.body.api_key.key as string;
    const send = as(admin);
    const ces = async (path: string, body: unknown) =>
      ok(await send('POST', `/v1/${LOCATION}/apps/${name}/${path}`, body), path);

    ok(await send('POST', '/v1/agents', DEMO_AGENT), 'agent');
    ok(await send('POST', '/v1/agents', { ...DEMO_AGENT, name: 'patient-desk', input_policy: 'queue' }), 'agent');
    ok(
      await send('PUT', '/v1/agents/patient-desk', {
        ...DEMO_AGENT,
        input_policy: 'queue',
        instructions: 'Be patient.',
      }),
      'edit agent',
    );
    await ces('secrets?secretId=token', { value: `secret-of-${name}` });
    await ces('tools?toolId=lookup', { clientFunction: { name: 'lookup', description: 'Looks up.' } });
    await ces('agents?agentId=helper', {
      displayName: 'Helper',
      instruction: 'Help.',
      modelSettings: { model: 'scripted:auto' },
    });
    const member = ok(await send('POST', '/v1/api-keys', { role: 'member' }), 'member key').body.key as string;
    // Only endpoint.disabled: nothing is sent anywhere, but every change of the app goes to the outbox.
    const endpoint = ok(
      await send('POST', '/v1/webhook-endpoints', {
        url: 'https://hooks.example.com/baton',
        event_types: ['endpoint.disabled'],
      }),
      'webhook endpoint',
    ).body.id as string;

    const talk = as(member);
    const thread = ok(await talk('POST', '/v1/threads', { agent: 'patient-desk' }), 'thread').body.id as string;
    const first = ok(await talk('POST', `/v1/threads/${thread}/messages`, { content: REFUND }), 'message');
    ok(
      await talk(
        'POST',
        `/v1/tool-calls/${first.body.choices[0].message.tool_calls[0].id}/result`,
        { content: '{"approved": true, "approved_by": "m@x.com"}' },
        { 'idempotency-key': `answer-${name}` },
      ),
      'answer',
    );
    const second = ok(await talk('POST', `/v1/threads/${thread}/messages`, { content: REFUND }), 'second message');
    expect(second.body.choices[0].finish_reason).toBe('tool_use');
    // A server call claim, as a process running a server tool holds one (claims last only while a call runs).
    const pending = await server.baton.store.ledger.get(appId, second.body.choices[0].message.tool_calls[0].id);
    await server.baton.store.serverClaims.claim(pending!, new Date().toISOString());
    expect((await talk('POST', `/v1/threads/${thread}/messages`, { content: 'still there?' })).status).toBe(202);
    ok(await talk('POST', '/v1/responses', { model: 'refund-desk', input: REFUND }), 'response');
    ok(
      await talk('POST', '/v1/chat/completions', {
        model: 'refund-desk',
        messages: [{ role: 'user', content: 'hello' }],
      }),
      'chat completion',
    );
    ok(
      await talk('POST', `/v1/${LOCATION}/apps/${name}/sessions/s-1:runSession`, {
        config: {
          session: `${LOCATION}/apps/${name}/sessions/s-1`,
          entryAgent: `${LOCATION}/apps/${name}/agents/helper`,
        },
        inputs: [{ text: 'hello' }],
      }),
      'CES session',
    );

    // A delivery already made, as the worker leaves it (none is due, so nothing is sent).
    const events = ((await tables()).webhook_events ?? []).filter((event) => event.app_id === appId);
    expect(events.length).toBeGreaterThan(0);
    const now = new Date().toISOString();
    await server.baton.store.webhooks.insertDeliveries(
      events.slice(0, 3).map((event) => ({
        id: newId('whd'),
        appId,
        endpointId: endpoint,
        eventId: String(event.id),
        eventSeq: Number(event.seq),
        eventType: String(event.type),
        conversationId: (event.conversation_id as string | null) ?? null,
        status: 'succeeded' as const,
        attempts: 1,
        nextAttemptAt: null,
        claimToken: null,
        lastAttemptAt: now,
        lastResponseCode: 200,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      })),
    );
    return { appId, admin, member };
  }

  async function auditOf(appId: string): Promise<AuditEvent[]> {
    const listed = await server.request('GET', `/v1/audit-events?app_id=${appId}&limit=100`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    return listed.body.data as AuditEvent[];
  }

  /** Makes the app purges of this server stop after `batches` batches of 2 rows, as a process dying midway would. */
  function crashPurgesAfter(batches: number): () => void {
    const apps = server.baton.store.apps;
    const original = apps.purgeBatch;
    let ran = 0;
    apps.purgeBatch = async (appId, batch) => {
      if (ran >= batches) throw new Error('simulated crash in the middle of a purge');
      ran += 1;
      return original(appId, { ...batch, limit: 2 });
    };
    return () => {
      apps.purgeBatch = original;
    };
  }

  it('the purge covers every table of the database but the app row and the audit trail', async () => {
    const names = Object.keys(await tables()).filter((name) => !name.startsWith('kysely_'));
    expect([...APP_PURGE_TABLES, 'apps', 'audit_events'].sort()).toEqual(names.sort());
  });

  it('DELETE purges every row of the app and records who, when and how many rows; the name is free again', async () => {
    const { appId, admin, member } = await populatedApp('doomed');
    const before = await tables();
    const ids = idsOf(before, appId);
    const expected = countsByTable(before, ids);
    for (const table of APP_PURGE_TABLES) expect(expected[table], `rows of the app in ${table}`).toBeGreaterThan(0);
    const defaultRows = rowsMentioning(before, [server.baton.defaultAppId]).length;
    expect((await as(member)('GET', '/v1/threads')).status).toBe(200); // cached now

    const deleted = await server.request('DELETE', `/v1/${LOCATION}/apps/doomed`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toMatchObject({
      done: true,
      response: { '@type': 'type.googleapis.com/google.protobuf.Empty' },
    });

    for (const key of [admin, member]) {
      const refused = await as(key)('GET', '/v1/threads');
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('invalid_api_key');
    }
    const after = await tables();
    expect(rowsMentioning(after, ids)).toEqual([]);
    expect(rowsMentioning(after, [server.baton.defaultAppId]).length).toBe(defaultRows);
    expect((await server.request('GET', `/v1/${LOCATION}/apps/doomed`)).status).toBe(404);
    expect((await server.request('DELETE', `/v1/${LOCATION}/apps/doomed`)).status).toBe(404);

    const [purged, requested, ...others] = await auditOf(appId);
    expect(others).toEqual([]);
    expect(requested).toMatchObject({
      action: 'app.deletion_requested',
      actor: operatorKeyId,
      app_id: appId,
      target: appId,
      details: { name: 'doomed', project: 'default', location: 'global' },
    });
    expect(purged).toMatchObject({
      action: 'app.purged',
      actor: operatorKeyId,
      app_id: appId,
      target: appId,
      details: {
        name: 'doomed',
        requested_at: requested!.created_at,
        started_at: expect.any(String),
        finished_at: purged!.created_at,
        batches: expect.any(Number),
      },
    });
    expect(purged!.counts).toEqual(expected);
    expect(Number(purged!.details.batches)).toBeGreaterThanOrEqual(APP_PURGE_TABLES.length);
    expect(String(purged!.details.started_at) >= requested!.created_at).toBe(true);

    // The name is free: a new app takes it, empty.
    const again = await server.request('POST', `/v1/${LOCATION}/apps?appId=doomed`, { displayName: 'Doomed again' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const reborn = await server.baton.store.apps.getByName('doomed');
    expect(reborn?.id).not.toBe(appId);
    expect(rowsMentioning(await tables(), [reborn!.id])).toHaveLength(1); // its apps row only
  });

  it('a purge stopped midway leaves the app deleted; the leader finishes it in tiny batches, counting every row', async () => {
    const { appId, admin } = await populatedApp('halfway');
    const before = await tables();
    const ids = idsOf(before, appId);
    const expected = countsByTable(before, ids);

    const restore = crashPurgesAfter(1);
    let deleted: TestResponse;
    try {
      deleted = await server.request('DELETE', `/v1/${LOCATION}/apps/halfway`);
    } finally {
      restore();
    }
    // The deletion is committed: the same answer, keys dead at once, the name gone and free.
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body.done).toBe(true);
    expect((await as(admin)('GET', '/v1/me')).status).toBe(401);
    expect((await server.request('GET', `/v1/${LOCATION}/apps/halfway`)).status).toBe(404);
    const listed = await server.request('GET', `/v1/${LOCATION}/apps`);
    expect(JSON.stringify(listed.body)).not.toContain('halfway');
    // One batch of 2 rows went; the rest waits for the sweep.
    const left = rowsMentioning(await tables(), ids).length;
    expect(left).toBe(rowsMentioning(before, ids).length - 2);
    const [tombstone] = (await server.baton.store.apps.listTombstones()).filter((one) => one.id === appId);
    expect(tombstone).toMatchObject({ name: 'halfway', deletedBy: operatorKeyId, progress: { batches: 1 } });
    expect((await auditOf(appId)).map((event) => event.action)).toEqual(['app.deletion_requested']);

    // What the sweeper's leader runs, with 3 rows per transaction.
    const batches: AppPurgeBatch[] = [];
    const events = await server.baton.engine.lifecycle.continuePurges({
      batchSize: 3,
      afterBatch: (batch) => void batches.push(batch),
    });
    expect(events.map((event) => event.appId)).toEqual([appId]);
    expect(batches.every((batch) => batch.removed >= 1 && batch.removed <= 3)).toBe(true);
    expect(batches.length).toBeGreaterThan(APP_PURGE_TABLES.length);
    expect(rowsMentioning(await tables(), ids)).toEqual([]);
    const [purged] = await auditOf(appId);
    expect(purged).toMatchObject({
      action: 'app.purged',
      actor: operatorKeyId,
      details: { batches: batches.length + 1 },
    });
    // The batch before the crash is counted too.
    expect(purged!.counts).toEqual(expected);
    expect(await server.baton.store.apps.listTombstones()).toEqual([]);
    // Nothing left to do: a second run finds nothing.
    expect(await server.baton.engine.lifecycle.continuePurges()).toEqual([]);
  });

  it("the deadline sweeper resumes a purge the DELETE's process never started", async () => {
    const { appId } = await populatedApp('orphaned');
    const ids = idsOf(await tables(), appId);
    const restore = crashPurgesAfter(0);
    try {
      expect((await server.request('DELETE', `/v1/${LOCATION}/apps/orphaned`)).status).toBe(200);
    } finally {
      restore();
    }
    expect(rowsMentioning(await tables(), ids).length).toBeGreaterThan(0);

    const errors: unknown[] = [];
    const sweeper = new DeadlineSweeper(server.baton.engine, 60_000, { warn: () => {}, error: (e) => errors.push(e) });
    await sweeper.sweep();
    const deadline = Date.now() + 15_000;
    while (!(await auditOf(appId)).some((event) => event.action === 'app.purged')) {
      expect(Date.now() < deadline, 'the sweep finished the purge').toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(errors).toEqual([]);
    expect(rowsMentioning(await tables(), ids)).toEqual([]);
    expect(await server.baton.store.apps.listTombstones()).toEqual([]);
  });

  it('bad input gets a precise 4xx and changes nothing', async () => {
    const { appId, admin } = await populatedApp('kept');
    const ids = idsOf(await tables(), appId);
    const snapshot = rowsMentioning(await tables(), ids).length;

    const unknown = await server.request('DELETE', `/v1/${LOCATION}/apps/no-such-app`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ status: 'NOT_FOUND' });
    expect(unknown.body.error.message).toContain('no-such-app');

    // An app admin (not an operator) may not delete apps, its own included.
    for (const target of ['kept', 'default']) {
      const refused = await as(admin)('DELETE', `/v1/${LOCATION}/apps/${target}`);
      expect(refused.status, target).toBe(403);
      expect(refused.body.error).toMatchObject({ status: 'PERMISSION_DENIED' });
      expect(refused.body.error.message).toContain("needs a key with role 'operator'");
    }

    // An operator key may not delete its own app.
    const own = await server.request('DELETE', `/v1/${LOCATION}/apps/default`);
    expect(own.status).toBe(400);
    expect(own.body.error).toMatchObject({ status: 'FAILED_PRECONDITION' });
    expect(own.body.error.message).toContain('the app of the operator key');

    // Another app's audit trail is not found for anyone but an operator.
    const foreign = await as(admin)('GET', `/v1/audit-events?app_id=${server.baton.defaultAppId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'app_not_found', param: 'app_id' });
    expect((await as(admin)('GET', `/v1/audit-events?app_id=${appId}`)).status).toBe(200);
    const empty = await server.request('GET', '/v1/audit-events?app_id=');
    expect(empty.status).toBe(400);

    expect(rowsMentioning(await tables(), ids).length).toBe(snapshot);
    expect((await as(admin)('GET', '/v1/threads')).status).toBe(200);
    expect((await server.request('GET', `/v1/${LOCATION}/apps/kept`)).status).toBe(200);
    expect((await server.request('GET', `/v1/${LOCATION}/apps/default`)).status).toBe(200);
    expect(await server.baton.store.apps.listTombstones()).toEqual([]);
    expect(await auditOf(appId)).toEqual([]);
  });
});
