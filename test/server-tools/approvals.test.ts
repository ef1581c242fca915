import { fireTogether } from '../helpers/fire-together.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP, create, mixedProgram, PriceApi } from './server-tool-fixtures.ts';

/**
 * `requireApproval` on a real OpenAPI tool: nothing reaches the API before a person approves, and
 * approvals arriving together (two reviewers, a retry, two replicas) run the tool once.
 */
describe('approvals of a server tool', () => {
  let baton: TestBaton;
  const api = new PriceApi();

  beforeAll(async () => {
    await api.start();
    baton = await startTestBaton({ scripted: { mixed: mixedProgram }, egressAllow: ['127.0.0.1/32'] });
    await create(baton, 'tools?toolId=price', {
      openApiTool: { openApiSchema: api.document() },
      requireApproval: true,
    });
    await create(baton, 'agents?agentId=careful', {
      displayName: 'Careful',
      instruction: 'Help.',
      modelSettings: { model: 'scripted:mixed' },
      tools: [`${APP}/tools/price`],
    });
  });
  afterAll(async () => {
    await baton?.close();
    await api.close();
  });

  async function pausedCall(): Promise<{ thread: string; call: any }> {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'careful' })).body.id;
    const paused = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'price' });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const [call] = paused.body.choices[0].message.tool_calls;
    expect(call).toMatchObject({ name: 'lookup_price', kind: 'approval' });
    return { thread, call };
  }

  it('shows requireApproval on the resource and refuses it on a client function', async () => {
    const tool = await baton.request('GET', `/v1/${APP}/tools/price`);
    expect(tool.body.requireApproval).toBe(true);
    const refused = await baton.request('POST', `/v1/${APP}/tools`, {
      clientFunction: { name: 'x' },
      requireApproval: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('tool.requireApproval');
  });

  it('approving with edited arguments calls the API once with them, records who and when, and resumes', async () => {
    const before = api.requests.length;
    const { call } = await pausedCall();
    expect(api.requests.length).toBe(before);
    const decided = await baton.request('POST', `/v1/tool-calls/${call.id}/decision`, {
      approve: true,
      arguments: { sku: 'C-3' },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.tool_call).toMatchObject({
      state: 'completed',
      submitted_by: expect.any(String),
      submitted_at: expect.any(String),
    });
    expect(api.requests.slice(before).map((request) => request.url)).toEqual(['/prices/C-3']);
    expect(decided.body.response.choices[0].message.content).toContain('C-3');
  });

  it('edited arguments that break the schema are refused and nothing runs', async () => {
    const before = api.requests.length;
    const { call } = await pausedCall();
    const bad = await baton.request('POST', `/v1/tool-calls/${call.id}/decision`, {
      approve: true,
      arguments: { sku: 7 },
    });
    expect(bad.status).toBe(400);
    expect(api.requests.length).toBe(before);
  });

  it('denying answers the model with the reason; the API is never called', async () => {
    const before = api.requests.length;
    const { call } = await pausedCall();
    const denied = await baton.request('POST', `/v1/tool-calls/${call.id}/decision`, {
      approve: false,
      reason: 'prices are frozen',
    });
    expect(denied.body.tool_call).toMatchObject({ state: 'denied' });
    expect(denied.body.response.choices[0].message.content).toMatch(/^Failed: .*prices are frozen/);
    expect(api.requests.length).toBe(before);
  });

  it('runs the approved tool once, however many approvals arrive together', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'careful' })).body.id;
    const paused = await baton.request('POST', `/v1/threads/${thread}/messages`, { content: 'price' });
    const [call] = paused.body.choices[0].message.tool_calls;
    const before = api.requests.length;
    const answers = await fireTogether(10, () =>
      baton.request('POST', `/v1/tool-calls/${call.id}/decision`, { approve: true }),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((each) => each.status !== 200)) {
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toMatch(/tool_call_already_resolved|approval_in_progress/);
    }
    expect(api.requests.length - before).toBe(1);
  });

  it('an approval whose tool was running in a process that died is recorded as an unknown outcome, and its turn goes on', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'careful' })).body.id;
    const paused = await baton.request('POST', `/v1/threads/${thread}/messages`, { content: 'price' });
    const [call] = paused.body.choices[0].message.tool_calls;
    const entry = await baton.baton.store.ledger.get(baton.baton.defaultAppId, call.id);
    // As a process does when it starts running the approved tool; then it died without a renewal.
    await baton.baton.store.serverClaims.claim(entry!, new Date().toISOString());
    const busy = await baton.request('POST', `/v1/tool-calls/${call.id}/decision`, { approve: true });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('approval_in_progress');

    expect(await baton.baton.engine.recoverStaleClaims(100, 0)).toBe(1);
    await baton.baton.engine.idle();
    const recovered = await baton.request('GET', `/v1/tool-calls/${call.id}`);
    expect(recovered.body).toMatchObject({ state: 'failed', submitted_by: 'baton:recovery' });
    expect(recovered.body.result.content).toContain('whether it took effect is unknown');
    const state = await baton.request('GET', `/v1/threads/${thread}`);
    expect(state.body.status).toBe('idle');
    expect(await baton.baton.store.serverClaims.listByTurn(entry!.turnId)).toEqual([]);
  });

  it('a decision that read the approval before another committed does not run the tool once that one let its claim go', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'careful' })).body.id;
    const paused = await baton.request('POST', `/v1/threads/${thread}/messages`, { content: 'price' });
    const [call] = paused.body.choices[0].message.tool_calls;
    const ledger = baton.baton.store.ledger;
    const pending = await ledger.get(baton.baton.defaultAppId, call.id);
    const first = await baton.request('POST', `/v1/tool-calls/${call.id}/decision`, { approve: true });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const before = api.requests.length;

    // The second decision's first read of the row is from before the first committed.
    const get = ledger.get.bind(ledger);
    let stale = true;
    ledger.get = async (appId, id) => {
      if (id !== call.id || !stale) return get(appId, id);
      stale = false;
      return pending;
    };
    try {
      const second = await baton.request('POST', `/v1/tool-calls/${call.id}/decision`, { approve: true });
      expect(stale).toBe(false);
      expect(second.status).toBe(409);
      expect(second.body.error.code).toBe('tool_call_already_resolved');
    } finally {
      ledger.get = get;
    }
    expect(api.requests.length - before).toBe(0);
    expect(await baton.baton.store.serverClaims.listByTurn(pending!.turnId)).toEqual([]);
  });

  it('a decision refused while another runs the tool does not bind its Idempotency-Key', async () => {
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'careful' })).body.id;
    const paused = await baton.request('POST', `/v1/threads/${thread}/messages`, { content: 'price' });
    const [call] = paused.body.choices[0].message.tool_calls;
    const entry = await baton.baton.store.ledger.get(baton.baton.defaultAppId, call.id);
    await baton.baton.store.serverClaims.claim(entry!, new Date().toISOString());
    const key = { 'idempotency-key': `approve-${call.id}` };
    const refused = await baton.request('POST', `/v1/tool-calls/${call.id}/decision`, { approve: true }, key);
    expect(refused.body.error.code).toBe('approval_in_progress');
    // The other decision ended without a result (its claim released): the same request runs now.
    await baton.baton.store.serverClaims.release(call.id);
    const decided = await baton.request('POST', `/v1/tool-calls/${call.id}/decision`, { approve: true }, key);
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.headers.get('idempotent-replayed')).toBeNull();
    expect(decided.body.tool_call.state).toBe('completed');
  });
});
