import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { createTestDatabase, postgresUnavailable, type TestDatabase } from '../helpers/postgres-database.ts';
import { PriceApi } from '../server-tools/server-tool-fixtures.ts';
import { BatonProcess, freePort, makeWorkspace, PROCESS_ADMIN_KEY, REPO_ROOT } from './baton-process.ts';

/**
 * The chaos check, bounded to about a minute and a half: three `baton serve` replicas on
 * one PostgreSQL database behind HAProxy; 20 clients run whole round trips (thread, message,
 * pending call, result, answer) with Idempotency-Keys and retries, while every few seconds one
 * replica is SIGKILLed and restarted. At the end every acknowledged result is applied exactly
 * once, no conversation is stuck, and the ledger's invariants hold in SQL.
 */

const HAPROXY = '/usr/sbin/haproxy';
const unavailable = (await postgresUnavailable()) ?? (existsSync(HAPROXY) ? null : `no HAProxy at ${HAPROXY}`);
if (unavailable?.startsWith('no HAProxy')) {
  if (process.env.BATON_REQUIRE_POSTGRES === '1') throw new Error(`${unavailable}; CI installs it (.ci/run)`);
  console.warn(`skipping the chaos test: ${unavailable}`);
}

const CLIENTS = 20;
const CHAOS_MS = 40_000;
const KILL_EVERY_MS = 4_000;
const SETTLE_MS = 60_000;
const SEED = 'I need approval to process a $500 refund';
const APP = 'projects/default/locations/global/apps/default';

/**
 * Two kinds of round trip: the demo agent's one client call, and a step with two client calls
 * around a server call (an OpenAPI tool on a local API that counts its requests) whose result
 * commits with the step, or, if its replica dies mid-call, is recorded by recovery as an unknown
 * outcome: every request the API received is a server call the ledger shows.
 */
const AGENTS = [
  { agent: 'refund-desk', message: SEED },
  { agent: 'mixed-desk', message: 'mixed' },
  // A server call that waits for a person's approval: the client approves it, and only then it runs.
  { agent: 'careful-desk', message: 'price' },
] as const;
/**
 * The server call's argument is the user's message, which each attempt makes unique: every
 * request the price API receives then names the ledger row (or rows) it belongs to.
 */
const CHAOS_PROGRAM = {
  rules: [
    {
      when: { user: 'mixed' },
      calls: [
        { tool: 'get_weather', arguments: { city: 'SF' } },
        { tool: 'lookup_price', arguments: { sku: '{{user}}' } },
        { tool: 'get_weather', arguments: { city: 'NYC' } },
      ],
    },
    { when: { user: 'price' }, call: { tool: 'lookup_price', arguments: { sku: '{{user}}' } } },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

interface Outcome {
  roundTrips: number;
  /** call id → the content the client's acknowledged submit carried. */
  acknowledged: Map<string, string>;
  /** Approvals the client's decision was acknowledged for (or found decided, by it or by recovery). */
  approved: Set<string>;
  threads: Set<string>;
  /** Answers that were a 5xx or a dropped connection; each was retried. */
  failures: number;
  /** Server calls cut off by a kill, recorded by recovery. */
  unknownOutcomes?: number;
}

/** One HTTP call through the balancer; a dropped connection reads as status 0. */
async function call(
  base: string,
  method: string,
  path: string,
  body: unknown,
  key: string | undefined,
): Promise<{ status: number; body: any }> {
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${PROCESS_ADMIN_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key ? { 'idempotency-key': key } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // HAProxy's own error pages are HTML.
    }
    return { status: response.status, body: parsed };
  } catch {
    return { status: 0, body: null };
  }
}

/** Answers worth retrying with the same key: the replica died, or the key or thread is still held. */
function retryable(answer: { status: number; body: any }): boolean {
  if (answer.status === 0 || answer.status >= 500 || answer.status === 429) return true;
  // Not Baton's JSON: the balancer's own error page (its timeouts answer 408, for one).
  if (typeof answer.body !== 'object' || answer.body === null) return true;
  const code = answer.body?.error?.code;
  return (
    answer.status === 409 &&
    (code === 'idempotency_key_in_use' || code === 'thread_busy' || code === 'approval_in_progress')
  );
}

async function withRetries(
  outcome: Outcome,
  deadline: number,
  send: () => Promise<{ status: number; body: any }>,
): Promise<{ status: number; body: any }> {
  for (;;) {
    const answer = await send();
    if (answer.status === 0 || answer.status >= 500) outcome.failures += 1;
    if (!retryable(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** One client: round trips until `stopAt`, each finished (with retries) even after it. */
async function client(base: string, index: number, stopAt: number, outcome: Outcome): Promise<void> {
  const { agent, message } = AGENTS[index % AGENTS.length]!;
  for (let trip = 0; Date.now() < stopAt; trip++) {
    const tag = `c${index}-t${trip}`;
    const deadline = Date.now() + SETTLE_MS;
    const thread = await withRetries(outcome, deadline, () =>
      call(base, 'POST', '/v1/threads', { agent }, `${tag}-thread`),
    );
    expect(thread.status, JSON.stringify(thread.body)).toBe(200);
    const threadId = thread.body.id as string;
    outcome.threads.add(threadId);
    let pending: { id: string; kind?: string }[] = [];
    for (let attempt = 0; pending.length === 0; attempt++) {
      expect(attempt, `thread ${threadId} never paused`).toBeLessThan(5);
      const sent = await withRetries(outcome, deadline, () =>
        call(
          base,
          'POST',
          `/v1/threads/${threadId}/messages`,
          { content: `${message} ${tag}-${attempt}` },
          `${tag}-message-${attempt}`,
        ),
      );
      // Not 200: the turn's replica died and recovery failed it (the message goes again, with a new
      // key), or an earlier attempt committed and its replica died before answering, so this one
      // found the calls it made pending. The thread's state says which.
      if (sent.status !== 200)
        expect(String(sent.body?.error?.code), `${sent.status} ${JSON.stringify(sent.body)}`).toMatch(
          /interrupted|turn_failed|model_error|tool_calls_pending/,
        );
      const state = await withRetries(outcome, deadline, () =>
        call(base, 'GET', `/v1/threads/${threadId}`, undefined, undefined),
      );
      pending = (state.body?.pending_tool_calls ?? []) as { id: string; kind?: string }[];
    }
    for (const pendingCall of pending) {
      if (pendingCall.kind === 'approval') {
        const decided = await withRetries(outcome, deadline, () =>
          call(
            base,
            'POST',
            `/v1/tool-calls/${pendingCall.id}/decision`,
            { approve: true },
            `${tag}-approve-${pendingCall.id}`,
          ),
        );
        if (decided.status !== 200) {
          // Decided already: by this client's earlier attempt, or by recovery (outcome unknown).
          expect(String(decided.body?.error?.code), `${decided.status} ${JSON.stringify(decided.body)}`).toMatch(
            /already_resolved/,
          );
        }
        outcome.approved.add(pendingCall.id);
        continue;
      }
      const content = `{"approved": true, "by": "${tag}"}`;
      const submitted = await withRetries(outcome, deadline, () =>
        call(base, 'POST', `/v1/tool-calls/${pendingCall.id}/result`, { content }, `${tag}-result-${pendingCall.id}`),
      );
      if (submitted.status === 200) {
        outcome.acknowledged.set(pendingCall.id, content);
        continue;
      }
      // The first attempt committed but its replica died before answering; the retry found the
      // call resolved. It counts as acknowledged only if it holds exactly this content.
      expect(String(submitted.body?.error?.code), `${submitted.status} ${JSON.stringify(submitted.body)}`).toMatch(
        /already_resolved|not_pending/,
      );
      const entry = await withRetries(outcome, deadline, () =>
        call(base, 'GET', `/v1/tool-calls/${pendingCall.id}`, undefined, undefined),
      );
      expect(entry.body.result?.content).toBe(content);
      outcome.acknowledged.set(pendingCall.id, content);
    }
    outcome.roundTrips += 1;
  }
}

describe.skipIf(unavailable !== null)('three replicas behind HAProxy, one SIGKILLed every few seconds', () => {
  const workspace = makeWorkspace('baton-chaos-');
  let database: TestDatabase;
  let balancer: ChildProcess;
  let base: string;
  const replicas: BatonProcess[] = [];
  let replicaPorts: number[] = [];
  const api = new PriceApi();

  const startReplica = (index: number) =>
    BatonProcess.start({
      dataDir: workspace.dataDir,
      configFile: workspace.configFile,
      databaseUrl: database.url,
      port: replicaPorts[index]!,
      timeoutMs: 30_000,
    });

  beforeAll(async () => {
    database = await createTestDatabase('baton_chaos');
    await api.start();
    writeFileSync(
      workspace.configFile,
      stringifyYaml({
        server: { idempotency_lease_seconds: 3 },
        engine: { turn_lease_seconds: 3 },
        scripted: { chaos: CHAOS_PROGRAM },
        egress: { allow: ['127.0.0.1/32'] },
        agents: [DEMO_AGENT],
      }),
    );
    replicaPorts = await Promise.all([freePort(), freePort(), freePort()]);
    // The first replica migrates; the others join.
    replicas.push(await startReplica(0));
    replicas.push(...(await Promise.all([startReplica(1), startReplica(2)])));
    const port = await freePort();
    // The README's configuration, as is: only the addresses come from the environment.
    balancer = spawn(HAPROXY, ['-f', join(REPO_ROOT, 'deploy/haproxy.cfg'), '-db'], {
      stdio: 'ignore',
      env: {
        ...process.env,
        BATON_LISTEN: `127.0.0.1:${port}`,
        ...Object.fromEntries(
          replicaPorts.map((replica, index) => [`BATON_REPLICA_${index + 1}`, `127.0.0.1:${replica}`]),
        ),
      },
    });
    base = `http://127.0.0.1:${port}`;
    for (let tries = 0; (await call(base, 'GET', '/healthz', undefined, undefined)).status !== 200; tries++) {
      if (tries > 100) throw new Error('HAProxy did not come up');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const resources: [string, unknown][] = [
      [
        'tools?toolId=weather',
        {
          clientFunction: {
            name: 'get_weather',
            description: 'Weather of a city, looked up by the app.',
            parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
          },
        },
      ],
      ['tools?toolId=price', { openApiTool: { openApiSchema: api.document() } }],
      ['tools?toolId=approved-price', { openApiTool: { openApiSchema: api.document() }, requireApproval: true }],
      [
        'agents?agentId=mixed-desk',
        {
          displayName: 'Mixed desk',
          modelSettings: { model: 'scripted:chaos' },
          tools: [`${APP}/tools/weather`, `${APP}/tools/price`],
        },
      ],
      [
        'agents?agentId=careful-desk',
        {
          displayName: 'Careful desk',
          modelSettings: { model: 'scripted:chaos' },
          tools: [`${APP}/tools/approved-price`],
        },
      ],
    ];
    for (const [path, body] of resources) {
      const created = await call(base, 'POST', `/v1/${APP}/${path}`, body, undefined);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
    }
  }, 90_000);

  afterAll(async () => {
    balancer?.kill('SIGKILL');
    await Promise.all(replicas.map((replica) => replica.kill()));
    await database?.drop();
    await api.close();
    workspace.remove();
  });

  it('applies every acknowledged result exactly once and leaves no conversation stuck', async () => {
    const outcome: Outcome = {
      roundTrips: 0,
      acknowledged: new Map(),
      approved: new Set(),
      threads: new Set(),
      failures: 0,
    };
    const stopAt = Date.now() + CHAOS_MS;
    let kills = 0;
    // A kill every KILL_EVERY_MS, round robin; each victim restarts in the background (on its own
    // port, so HAProxy's health check brings it back) and is not killed again before it is up.
    const restarting: Promise<void>[] = replicas.map(async () => {});
    const chaos = (async () => {
      for (let victim = 0; Date.now() < stopAt - KILL_EVERY_MS; victim = (victim + 1) % replicas.length) {
        await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS));
        await restarting[victim];
        await replicas[victim]!.kill('SIGKILL');
        kills += 1;
        restarting[victim] = startReplica(victim).then((replica) => {
          replicas[victim] = replica;
        });
      }
      await Promise.all(restarting);
    })();
    await Promise.all([chaos, ...Array.from({ length: CLIENTS }, (_, index) => client(base, index, stopAt, outcome))]);

    expect(kills).toBeGreaterThanOrEqual(6);
    expect(outcome.roundTrips).toBeGreaterThan(CLIENTS);
    // Every call a finished round trip waited on was acknowledged: one result per demo trip, two per
    // mixed one, one decision per approval trip.
    expect(outcome.acknowledged.size + outcome.approved.size).toBeGreaterThanOrEqual(outcome.roundTrips);

    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      // Orphaned turns are failed and stranded ones resumed by the leader's sweeps: wait for them.
      const settled = Date.now() + SETTLE_MS;
      const busy = async () =>
        Number(
          (
            await db.query<{ n: string }>(
              `select count(*) as n from turns t where t.status = 'in_progress' or (t.status = 'requires_action'
                and not exists (select 1 from ledger_entries l where l.turn_id = t.id and l.state = 'pending'))`,
            )
          ).rows[0]?.n,
        );
      while ((await busy()) > 0 && Date.now() < settled) await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await busy(), 'turns still running or stranded').toBe(0);

      // Every acknowledged result: its call completed with exactly that content, one output item.
      const { rows: entries } = await db.query<{ id: string; state: string; result: string }>(
        'select id, state, result from ledger_entries where id = any($1)',
        [[...outcome.acknowledged.keys()]],
      );
      expect(entries).toHaveLength(outcome.acknowledged.size);
      for (const entry of entries) {
        expect(entry.state).toBe('completed');
        expect(JSON.parse(entry.result)).toEqual([{ type: 'text', text: outcome.acknowledged.get(entry.id) }]);
      }
      const { rows: outputs } = await db.query<{ call_id: string; n: string }>(
        "select payload::json->>'callId' as call_id, count(*) as n from items where type = 'function_call_output' group by 1",
      );
      for (const output of outputs) expect(Number(output.n), `outputs of ${output.call_id}`).toBe(1);
      for (const id of outcome.acknowledged.keys())
        expect(
          outputs.some((output) => output.call_id === id),
          `output of ${id}`,
        ).toBe(true);

      // No call waits in a turn that has ended, and no paused turn has every call answered.
      const { rows: orphans } = await db.query(
        `select l.id from ledger_entries l join turns t on t.id = l.turn_id
          where l.state = 'pending' and t.status not in ('requires_action', 'in_progress')`,
      );
      expect(orphans).toEqual([]);
      const { rows: stranded } = await db.query(
        `select t.id from turns t where t.status = 'requires_action'
          and not exists (select 1 from ledger_entries l where l.turn_id = t.id and l.state = 'pending')`,
      );
      expect(stranded).toEqual([]);
      // Each conversation of the test ended idle: its last turn completed.
      const { rows: idle } = await db.query<{ n: string }>(
        'select count(*) as n from conversations where id = any($1) and active_turn_id is null',
        [[...outcome.threads]],
      );
      expect(Number(idle[0]?.n)).toBe(outcome.threads.size);

      // Never an execution the ledger does not show: each request the price API received names its
      // call (the argument is the attempt's message), and no call reached the API more often than
      // the ledger has rows for it, completed with its result or failed with an unknown outcome.
      const { rows: serverCalls } = await db.query<{ state: string; submitted_by: string | null; sku: string }>(
        `select state, submitted_by, arguments::json->>'sku' as sku from ledger_entries
          where kind = 'server' or (kind = 'approval' and state <> 'pending')`,
      );
      const unknown = serverCalls.filter((row) => row.submitted_by === 'baton:recovery').length;
      expect(serverCalls.every((row) => row.state === 'completed' || row.submitted_by === 'baton:recovery')).toBe(true);
      const rowsBySku = new Map<string, number>();
      for (const row of serverCalls) rowsBySku.set(row.sku, (rowsBySku.get(row.sku) ?? 0) + 1);
      const requestsBySku = new Map<string, number>();
      for (const request of api.requests) {
        const sku = decodeURIComponent(request.url.split('/').pop() ?? '');
        requestsBySku.set(sku, (requestsBySku.get(sku) ?? 0) + 1);
      }
      for (const [sku, requests] of requestsBySku)
        expect(requests, `API requests for '${sku}' over its ledger rows`).toBeLessThanOrEqual(rowsBySku.get(sku) ?? 0);
      outcome.unknownOutcomes = unknown;
    } finally {
      await db.end();
    }
    console.log(
      `chaos: ${kills} kills, ${outcome.roundTrips} round trips, ${outcome.failures} failed answers retried, ` +
        `${api.requests.length} server calls run, ${outcome.unknownOutcomes ?? 0} cut off and recorded as unknown`,
    );
  }, 240_000);
});
