import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import OpenAI from 'openai';
import { ManualClock, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP, create } from '../server-tools/server-tool-fixtures.ts';

/**
 * Tool workers over HTTP (docs/tool-workers.md): claims under leases, heartbeats, fenced results,
 * lapses counted as attempts, releases, long-polls, worker keys, and every bad request refused
 * with nothing changed. The leases' times follow a manual clock, so lapses need no waiting.
 */

const program = {
  rules: [
    { when: { user: 'stock' }, call: { tool: 'check_stock', arguments: { sku: 'A-1' } } },
    { when: { user: 'ship' }, call: { tool: 'ship_parcel', arguments: { sku: 'A-1' } } },
    { when: { user: 'count' }, call: { tool: 'count_stock', arguments: { sku: 'A-1' } } },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

const checkStock = {
  name: 'check_stock',
  description: 'Stock of a SKU in the warehouse.',
  parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  executor: 'worker' as const,
  max_attempts: 2,
};

describe('tool workers', () => {
  const clock = new ManualClock(new Date('2026-06-01T08:00:00.000Z'));
  let server: TestBaton;

  beforeAll(async () => {
    server = await startTestBaton(
      {
        scripted: { stock: program },
        agents: [DEMO_AGENT, { name: 'stock-desk', model: 'scripted:stock', tools: [checkStock] }],
      },
      { clock },
    );
  });
  afterAll(async () => server?.close());

  async function pause(content = 'stock of A-1?', body: Record<string, unknown> = {}) {
    const thread = await server.request('POST', '/v1/threads', { agent: 'stock-desk' });
    const reply = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content, ...body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return { threadId: thread.body.id as string, callId: reply.body.choices[0].message.tool_calls[0].id as string };
  }

  async function claim(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    return server.request('POST', '/v1/tool-calls/claim', { tools: ['check_stock'], max_calls: 100, ...body }, headers);
  }

  /** Releases every live claim, so each test starts from calls waiting for a worker. */
  async function releaseAll(calls: { id: string; lease: { token: string } }[]) {
    for (const call of calls)
      await server.request('POST', `/v1/tool-calls/${call.id}/release`, { lease_token: call.lease.token });
  }

  async function call(id: string) {
    return (await server.request('GET', `/v1/tool-calls/${id}`)).body;
  }

  it('a worker call is a pending ledger entry marked for workers, with no lease yet', async () => {
    const { callId } = await pause();
    expect(await call(callId)).toMatchObject({
      state: 'pending',
      executor: 'worker',
      attempts: 0,
      max_attempts: 2,
      lease: null,
    });
    // A client tool's call says so, and has no worker fields.
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const reply = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'refund 500' });
    const approval = await call(reply.body.choices[0].message.tool_calls[0].id);
    expect(approval.executor).toBe('client');
    expect(approval).not.toHaveProperty('lease');
    await releaseAll((await claim()).body.data);
  });

  it('claims hand each call to one worker under a lease; the holder renews it and answers with its token', async () => {
    const { threadId, callId } = await pause();
    const first = await claim({ worker: 'warehouse-1', lease_seconds: 30 });
    expect(first.status).toBe(200);
    expect(first.body.object).toBe('list');
    const mine = first.body.data.find((entry: { id: string }) => entry.id === callId);
    expect(mine).toMatchObject({
      state: 'pending',
      executor: 'worker',
      attempts: 1,
      input: { sku: 'A-1' },
      lease: { holder: 'warehouse-1', claimed_at: clock.now().toISOString() },
    });
    expect(mine.lease.token).toMatch(/^lease_/);
    expect(mine.lease.expires_at).toBe(new Date(clock.now().getTime() + 30_000).toISOString());
    // No second live lease on the same call.
    expect((await claim()).body.data.map((entry: { id: string }) => entry.id)).not.toContain(callId);
    // Others see who holds it, never the token.
    expect((await call(callId)).lease).toEqual({
      holder: 'warehouse-1',
      key_id: expect.any(String),
      claimed_at: mine.lease.claimed_at,
      expires_at: mine.lease.expires_at,
    });

    clock.advance(20);
    const renewed = await server.request('POST', `/v1/tool-calls/${callId}/lease`, {
      lease_token: mine.lease.token,
      lease_seconds: 30,
    });
    expect(renewed.status).toBe(200);
    expect(renewed.body.lease.expires_at).toBe(new Date(clock.now().getTime() + 30_000).toISOString());

    // Nobody else answers a call a worker is running: not the thread, not the ledger without a token.
    const direct = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [{ type: 'tool_result', tool_call_id: callId, content: '{"in_stock": 1}' }],
    });
    expect(direct.status).toBe(409);
    expect(direct.body.error).toMatchObject({ code: 'tool_call_leased' });
    expect(direct.body.error.message).toContain('warehouse-1');
    const untokened = await server.request('POST', `/v1/tool-calls/${callId}/result`, { content: '{"in_stock": 1}' });
    expect(untokened.status).toBe(409);
    expect(untokened.body.error.code).toBe('tool_call_leased');
    const forged = await server.request('POST', `/v1/tool-calls/${callId}/result`, {
      content: '{"in_stock": 1}',
      lease_token: 'lease_forged',
    });
    expect(forged.status).toBe(409);
    expect(forged.body.error.code).toBe('lease_lost');
    expect((await call(callId)).state).toBe('pending');

    const answered = await server.request('POST', `/v1/tool-calls/${callId}/result`, {
      content: '{"in_stock": 4}',
      lease_token: mine.lease.token,
    });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body).toMatchObject({ resumed: true, response: null, tool_call: { state: 'completed' } });
    await server.baton.engine.idle();
    const thread = await server.request('GET', `/v1/threads/${threadId}/messages`);
    expect(JSON.stringify(thread.body)).toContain('Done: {\\"in_stock\\": 4}');
    // Its lease cannot be renewed any more.
    const late = await server.request('POST', `/v1/tool-calls/${callId}/lease`, { lease_token: mine.lease.token });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('lease_lost');
    await releaseAll(first.body.data.filter((entry: { id: string }) => entry.id !== callId));
  });

  it('a lapsed lease fences its worker out: the call goes to the next worker, counted as an attempt', async () => {
    const { callId } = await pause();
    const dead = (await claim({ worker: 'dies', lease_seconds: 5 })).body.data.find(
      (entry: { id: string }) => entry.id === callId,
    );
    clock.advance(6);
    const heartbeat = await server.request('POST', `/v1/tool-calls/${callId}/lease`, { lease_token: dead.lease.token });
    expect(heartbeat.status).toBe(409);
    expect(heartbeat.body.error.message).toContain('ended at');
    const next = (await claim({ worker: 'takes-over', lease_seconds: 30 })).body.data.find(
      (entry: { id: string }) => entry.id === callId,
    );
    expect(next).toMatchObject({ attempts: 2, lease: { holder: 'takes-over' } });
    // The first worker comes back with its result: refused, the new holder's stands.
    const stale = await server.request('POST', `/v1/tool-calls/${callId}/result`, {
      content: 'stale',
      lease_token: dead.lease.token,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'lease_lost' });
    expect(stale.body.error.message).toContain('takes-over');
    const fresh = await server.request('POST', `/v1/tool-calls/${callId}/result`, {
      content: 'fresh',
      lease_token: next.lease.token,
    });
    expect(fresh.status).toBe(200);
    expect((await call(callId)).result).toEqual({ content: 'fresh', is_error: false });
    await server.baton.engine.idle();
  });

  it('after max_attempts lapsed leases the call resolves per its deadline policy, and the model hears why', async () => {
    const { threadId, callId } = await pause();
    for (let attempt = 1; attempt <= 2; attempt++) {
      const held = (await claim({ lease_seconds: 5 })).body.data;
      expect(held.find((entry: { id: string }) => entry.id === callId)?.attempts).toBe(attempt);
      clock.advance(6);
    }
    // Attempts spent: no worker gets it again.
    expect((await claim()).body.data.map((entry: { id: string }) => entry.id)).not.toContain(callId);
    expect(await server.baton.engine.applyLapsedLeases()).toBeGreaterThan(0);
    await server.baton.engine.idle();
    const expired = await call(callId);
    expect(expired).toMatchObject({ state: 'expired', submitted_by: 'baton:deadline' });
    expect(expired.result.content).toContain('max_attempts 2');
    const messages = JSON.stringify((await server.request('GET', `/v1/threads/${threadId}/messages`)).body);
    expect(messages).toContain('every lease lapsed without a result');
  });

  it('a lapsed lease is cleared by the sweep while attempts remain, and a release gives a claim back uncounted', async () => {
    const { callId } = await pause();
    const held = (await claim({ lease_seconds: 5 })).body.data.find((entry: { id: string }) => entry.id === callId);
    clock.advance(6);
    await server.baton.engine.applyLapsedLeases();
    expect(await call(callId)).toMatchObject({ state: 'pending', attempts: 1, lease: null });

    const again = (await claim()).body.data.find((entry: { id: string }) => entry.id === callId);
    expect(again.attempts).toBe(2);
    const released = await server.request('POST', `/v1/tool-calls/${callId}/release`, {
      lease_token: again.lease.token,
    });
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ attempts: 1, lease: null });
    // The old token released nothing and cannot release twice.
    const twice = await server.request('POST', `/v1/tool-calls/${callId}/release`, { lease_token: again.lease.token });
    expect(twice.status).toBe(409);
    expect(
      (await server.request('POST', `/v1/tool-calls/${callId}/release`, { lease_token: held.lease.token })).status,
    ).toBe(409);
    await releaseAll((await claim()).body.data);
  });

  it('a claim long-polls: it answers as soon as a call is made, not at the end of its wait', async () => {
    await releaseAll([]);
    const drained = (await claim()).body.data;
    const started = Date.now();
    const waiting = claim({ wait_seconds: 20, max_calls: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { callId } = await pause();
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body.data.map((entry: { id: string }) => entry.id)).toEqual([callId]);
    expect(Date.now() - started).toBeLessThan(10_000);
    // With nothing pending, an empty list at the end of the wait.
    const empty = await claim({ wait_seconds: 0.3 });
    expect(empty.body).toEqual({ object: 'list', data: [] });
    await releaseAll([...drained, ...answered.body.data]);
  });

  it("a request's own tools may be worker tools, claimed by name like an agent's", async () => {
    const shipParcel = { ...checkStock, name: 'ship_parcel', description: 'Ships a parcel.' };
    const { callId } = await pause('ship A-1', { tools: [shipParcel] });
    const claimed = await claim({ tools: ['ship_parcel'] });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body.data.map((entry: { id: string }) => entry.id)).toEqual([callId]);
    await releaseAll(claimed.body.data);
  });

  it('a Responses function tool may be a worker tool: the worker answers, the client continues the chain', async () => {
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key });
    const tool = {
      type: 'function',
      name: 'count_stock',
      parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      strict: false,
      // Baton's extension, beside the function tool's own fields.
      executor: 'worker',
    } as unknown as OpenAI.Responses.FunctionTool;
    const paused = await openai.responses.create({ model: 'stock-desk', input: 'count A-1', tools: [tool] });
    const call = paused.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    const [held] = (await claim({ tools: ['count_stock'] })).body.data;
    expect(held.id).toBe(call.call_id);
    const answered = await server.request('POST', `/v1/tool-calls/${held.id}/result`, {
      content: '7 left',
      lease_token: held.lease.token,
    });
    expect(answered.status).toBe(200);
    await server.baton.engine.idle();
    const done = await openai.responses.retrieve(paused.id);
    expect(done.status).toBe('completed');
  });

  it('a CES clientFunction with "executor": "WORKER" is claimed like any worker tool', async () => {
    await create(server, 'tools?toolId=count-stock', {
      clientFunction: {
        name: 'count_stock',
        description: 'Counts a SKU.',
        parameters: { type: 'OBJECT', properties: { sku: { type: 'STRING' } } },
        executor: 'WORKER',
        maxAttempts: 5,
      },
    });
    const refused = await server.request('POST', `/v1/${APP}/tools?toolId=odd`, {
      clientFunction: { name: 'odd', parameters: { type: 'OBJECT' }, maxAttempts: 5 },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('maxAttempts');
    await create(server, 'agents?agentId=ces-stock', {
      displayName: 'CES stock',
      instruction: 'Count stock.',
      modelSettings: { model: 'scripted:stock' },
      tools: [`${APP}/tools/count-stock`],
    });
    const thread = await server.request('POST', '/v1/threads', { agent: 'ces-stock' });
    const reply = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'count A-1' });
    const callId = reply.body.choices[0].message.tool_calls[0].id;
    expect(await call(callId)).toMatchObject({ executor: 'worker', max_attempts: 5 });
    const claimed = await claim({ tools: ['count_stock'], agents: ['ces-stock'] });
    expect(claimed.body.data.map((entry: { id: string }) => entry.id)).toEqual([callId]);
    await releaseAll(claimed.body.data);
  });

  it('bad claims get a precise 4xx and claim nothing', async () => {
    const { callId } = await pause();
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ tools: ['no_such_tool'] }, 400, 'unknown_worker_tool', 'tools[0]'],
      [{ tools: ['check_stock', 'request_approval'] }, 400, 'tool_not_for_workers', 'tools[1]'],
      [{ max_calls: 0 }, 400, 'invalid_request', 'max_calls'],
      [{ max_calls: 100_000 }, 400, 'invalid_request', 'max_calls'],
      [{ lease_seconds: -5 }, 400, 'invalid_request', 'lease_seconds'],
      [{ wait_seconds: 3600 }, 400, 'invalid_request', 'wait_seconds'],
      [{ tools: [] }, 400, 'invalid_request', 'tools'],
      [{ surprise: true }, 400, 'unknown_parameter', 'surprise'],
    ];
    for (const [body, status, code, param] of cases) {
      const refused = await claim(body);
      expect(refused.status, JSON.stringify(body)).toBe(status);
      expect(refused.body.error.code, JSON.stringify(body)).toBe(code);
      expect(JSON.stringify(refused.body.error), JSON.stringify(body)).toContain(param);
    }
    expect(await call(callId)).toMatchObject({ attempts: 0, lease: null });
    const unknown = await server.request('POST', '/v1/tool-calls/call_nope/lease', { lease_token: 'lease_x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('tool_call_not_found');
    await releaseAll((await claim()).body.data);
  });

  it('a worker key reaches only its tools, on the tool-call routes; a reader key cannot claim', async () => {
    const { callId } = await pause();
    const minted = await server.request('POST', '/v1/api-keys', { role: 'member', tools: ['check_stock'], name: 'w' });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    expect(minted.body.tools).toEqual(['check_stock']);
    const worker = { authorization: `Bearer ${minted.body.key}` };
    const claimed = await claim({}, worker);
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.map((entry: { id: string }) => entry.id)).toContain(callId);

    const outOfScope = await claim({ tools: ['request_approval'] }, worker);
    expect(outOfScope.status).toBe(403);
    expect(outOfScope.body.error).toMatchObject({ code: 'key_out_of_scope', param: 'tools[0]' });
    const threads = await server.request('GET', '/v1/threads', undefined, worker);
    expect(threads.status).toBe(403);
    expect(threads.body.error.code).toBe('key_out_of_scope');
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const approvalReply = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'refund 500',
    });
    const approvalId = approvalReply.body.choices[0].message.tool_calls[0].id;
    const foreign = await server.request('GET', `/v1/tool-calls/${approvalId}`, undefined, worker);
    expect(foreign.status).toBe(403);
    const foreignResult = await server.request('POST', `/v1/tool-calls/${approvalId}/result`, { content: 'x' }, worker);
    expect(foreignResult.status).toBe(403);
    expect((await call(approvalId)).state).toBe('pending');

    const bad = await server.request('POST', '/v1/api-keys', { role: 'member', tools: ['not a name'] });
    expect(bad.status).toBe(400);
    const reader = await server.request('POST', '/v1/api-keys', { role: 'reader' });
    const readerClaim = await claim({}, { authorization: `Bearer ${reader.body.key}` });
    expect(readerClaim.status).toBe(403);
    expect(readerClaim.body.error.code).toBe('insufficient_role');
    await releaseAll(claimed.body.data);
  });

  it('an Idempotency-Key replays a worker result; a second, different result is refused', async () => {
    const { callId } = await pause();
    const held = (await claim()).body.data.find((entry: { id: string }) => entry.id === callId);
    const body = { content: 'in stock', lease_token: held.lease.token };
    const first = await server.request('POST', `/v1/tool-calls/${callId}/result`, body, { 'idempotency-key': 'w-1' });
    const replay = await server.request('POST', `/v1/tool-calls/${callId}/result`, body, { 'idempotency-key': 'w-1' });
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const other = await server.request('POST', `/v1/tool-calls/${callId}/result`, { ...body, content: 'other' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('tool_call_already_resolved');
    await server.baton.engine.idle();
    await releaseAll((await claim()).body.data);
  });

  it('max_attempts without "executor": "worker" is refused with the field named', async () => {
    const refused = await server.request('POST', '/v1/agents', {
      name: 'odd-desk',
      model: 'scripted:stock',
      tools: [{ ...checkStock, executor: 'client' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_tool_executor' });
    expect(refused.body.error.message).toContain('max_attempts');
    expect((await server.request('GET', '/v1/agents/odd-desk')).status).toBe(404);
  });
});
