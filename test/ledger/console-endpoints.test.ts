import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWith, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP, create } from '../server-tools/server-tool-fixtures.ts';

const ANSWER_SCHEMA = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, approved_by: { type: 'string' } },
  required: ['approved', 'approved_by'],
};

/** The endpoints the console and the SDK read besides the core faces. */
describe('console endpoints', () => {
  let baton: TestBaton;

  beforeAll(async () => {
    baton = await startTestBaton({ agents: [agentWith({}), agentWith({ name: 'discount-desk' })] });
    await create(baton, 'tools?toolId=quote', {
      requireApproval: true,
      jsFunction: {
        name: 'quote',
        description: 'Quote a refund.',
        parameters: { type: 'OBJECT', properties: { amount: { type: 'NUMBER' } } },
        jsCode: 'function quote(args) { return { output: args.amount }; }',
      },
    });
    await create(baton, 'tools?toolId=lookup', {
      clientFunction: {
        name: 'lookup_order',
        description: 'Finds an order.',
        parameters: { type: 'OBJECT', properties: { order: { type: 'STRING' } } },
        response: { type: 'OBJECT', properties: { status: { type: 'STRING', enum: ['open', 'shipped'] } } },
      },
    });
    await create(baton, 'agents?agentId=quoter', {
      displayName: 'Quoter',
      instruction: 'Quote.',
      modelSettings: { model: 'scripted:auto' },
      tools: [`${APP}/tools/quote`],
    });
    await create(baton, 'agents?agentId=orders', {
      displayName: 'Orders',
      instruction: 'Find orders.',
      modelSettings: { model: 'scripted:auto' },
      tools: [`${APP}/tools/lookup`],
    });
  });
  afterAll(async () => baton?.close());

  async function pausedThread(
    agent: string,
    body: Record<string, unknown> = {},
  ): Promise<{ threadId: string; callId: string }> {
    const thread = await baton.request('POST', '/v1/threads', { agent });
    const reply = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      role: 'user',
      content: 'refund 500 for order A-1',
      ...body,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return { threadId: thread.body.id, callId: reply.body.choices[0].message.tool_calls[0].id };
  }

  it('GET /v1/me names the key, its role and its app with the CES resource name', async () => {
    const me = await baton.request('GET', '/v1/me');
    expect(me.body).toMatchObject({
      object: 'principal',
      app: { name: 'default', resource_name: APP },
      key: { role: 'operator' },
    });
    const other = await baton.request('POST', '/v1/apps', { name: 'shop' });
    const shop = await baton.request('GET', '/v1/me', undefined, { authorization: `Bearer ${other.body.api_key.key}` });
    expect(shop.body.app).toMatchObject({ name: 'shop', resource_name: 'projects/default/locations/global/apps/shop' });
    expect((await baton.request('GET', '/v1/me', undefined, { authorization: 'Bearer bk_wrong' })).status).toBe(401);
  });

  it('GET /v1/threads lists conversations newest first with their status, filtered and paged', async () => {
    const idle = (await baton.request('POST', '/v1/threads', { agent: 'discount-desk' })).body.id;
    const pending = await pausedThread('discount-desk');
    const first = await baton.request('GET', '/v1/threads?agent=discount-desk&limit=1');
    expect(first.body).toMatchObject({
      object: 'list',
      has_more: true,
      data: [{ id: pending.threadId, status: 'pending', agent: 'discount-desk' }],
    });
    expect(first.body.data[0].pending_tool_calls[0].id).toBe(pending.callId);
    const second = await baton.request(
      'GET',
      `/v1/threads?agent=discount-desk&limit=1&after=${first.body.next_cursor}`,
    );
    expect(second.body).toMatchObject({ has_more: false, data: [{ id: idle, status: 'idle' }] });
    expect((await baton.request('GET', '/v1/threads?limit=101')).body.error.message).toContain('at most 100');
    expect((await baton.request('GET', '/v1/threads?after=garbage')).status).toBe(400);
  });

  it('created_before narrows the ledger list to older calls and refuses a malformed time', async () => {
    const { callId } = await pausedThread('refund-desk');
    const now = await baton.request(
      'GET',
      `/v1/tool-calls?state=pending&created_before=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(now.body.data.map((call: { id: string }) => call.id)).toContain(callId);
    const old = await baton.request('GET', '/v1/tool-calls?state=pending&created_before=2020-01-01T00:00:00%2B02:00');
    expect(old.body.data).toEqual([]);
    const bad = await baton.request('GET', '/v1/tool-calls?created_before=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('created_before');
  });

  it('GET /v1/tool-calls/{id}/tool gives the schemas of the tool a call was made to', async () => {
    const demo = await pausedThread('refund-desk');
    const demoTool = await baton.request('GET', `/v1/tool-calls/${demo.callId}/tool`);
    expect(demoTool.body).toMatchObject({
      object: 'tool_definition',
      call_id: demo.callId,
      kind: 'client',
      name: 'request_approval',
      executor: 'client',
    });
    expect(demoTool.body.response_schema.required).toEqual(['approved', 'approved_by']);

    // A per-request declaration of the same name is what that turn offered, so it wins.
    const declared = await pausedThread('refund-desk', {
      tools: [
        {
          name: 'request_approval',
          parameters: { type: 'object', properties: { amount: { type: 'number' } } },
          response_schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        },
      ],
    });
    expect((await baton.request('GET', `/v1/tool-calls/${declared.callId}/tool`)).body.response_schema).toEqual({
      type: 'object',
      properties: { ok: { type: 'boolean' } },
    });

    const order = await pausedThread('orders');
    const orderTool = await baton.request('GET', `/v1/tool-calls/${order.callId}/tool`);
    expect(orderTool.body).toMatchObject({
      name: 'lookup_order',
      executor: 'client',
      response_schema: { type: 'object', properties: { status: { type: 'string', enum: ['open', 'shipped'] } } },
    });

    const approval = await pausedThread('quoter');
    expect((await baton.request('GET', `/v1/tool-calls/${approval.callId}/tool`)).body).toMatchObject({
      kind: 'approval',
      name: 'quote',
      executor: 'server',
      response_schema: null,
    });
  });

  it("GET /v1/tool-calls/{id}/tool is a 404 for an unknown call, another app's call and a deleted tool", async () => {
    expect((await baton.request('GET', '/v1/tool-calls/call_nope/tool')).body.error.code).toBe('tool_call_not_found');
    const { callId } = await pausedThread('refund-desk');
    const app = await baton.request('POST', '/v1/apps', { name: 'elsewhere' });
    const foreign = await baton.request('GET', `/v1/tool-calls/${callId}/tool`, undefined, {
      authorization: `Bearer ${app.body.api_key.key}`,
    });
    expect(foreign.status).toBe(404);

    const order = await pausedThread('orders');
    // The turn pinned its agent version, which still names the tool; the tool itself is gone.
    const deleted = await baton.request('DELETE', `/v1/${APP}/tools/lookup?force=true`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const gone = await baton.request('GET', `/v1/tool-calls/${order.callId}/tool`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'tool_definition_not_found' });
    expect(gone.body.error.message).toContain('lookup_order');
  });

  it('refuses a response_schema that is not a JSON Schema, naming the field', async () => {
    const bad = await baton.request(
      'POST',
      '/v1/agents',
      agentWith({
        name: 'broken',
        tools: [{ name: 'x', parameters: { type: 'object' }, response_schema: { type: 'objekt' } }],
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_tool_response_schema', param: 'tools[0].response_schema' });
    expect((await baton.request('GET', '/v1/agents/broken')).status).toBe(404);
    const listed = await baton.request(
      'POST',
      '/v1/agents',
      agentWith({
        name: 'answers',
        tools: [{ name: 'x', parameters: { type: 'object' }, response_schema: ANSWER_SCHEMA }],
      }),
    );
    expect(listed.body.tools[0].response_schema).toEqual(ANSWER_SCHEMA);
  });

  it('serves the console without a key, with a strict content policy, and nothing outside its files', async () => {
    const page = await fetch(`${baton.url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${baton.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${baton.url}/console/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${baton.url}/console/assets/missing.js`)).status).toBe(404);
    // The API behind it still needs a key, whatever the path looks like.
    expect((await fetch(`${baton.url}/console/../v1/threads`)).status).not.toBe(200);
    expect((await fetch(`${baton.url}/v1/threads`)).status).toBe(401);
  });
});
