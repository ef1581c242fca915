import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { APP, create, mixedProgram, PriceApi } from './server-tool-fixtures.ts';

/** `requireApproval` on a real OpenAPI tool: nothing reaches the API before a person approves. */
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
});
