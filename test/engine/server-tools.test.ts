import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientToolDefinition } from '../../src/domain/records.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { weatherTool } from '../helpers/test-agents.ts';
import { lookupPriceTool, RecordingTools, refundTool } from '../helpers/recording-tools.ts';

/** Another read-only lookup, served like `lookup_price`. */
const lookup = (name: string): ClientToolDefinition => ({
  ...lookupPriceTool,
  name,
  server: { collection: 'tools', resourceId: name.replace('_', '-') },
});

const serverTools: ClientToolDefinition[] = [
  lookupPriceTool,
  lookup('lookup_stock'),
  lookup('lookup_tax'),
  refundTool,
  {
    name: 'slow_lookup',
    description: 'Never answers in time.',
    parameters: { type: 'object', properties: {} },
    server: { collection: 'tools', resourceId: 'slow' },
    timeoutSeconds: 0.2,
  },
];

const program = {
  rules: [
    {
      when: { user: 'mixed' },
      calls: [
        { tool: 'get_weather', arguments: { city: 'SF' } },
        { tool: 'lookup_price', arguments: { sku: 'A-1' } },
        { tool: 'get_weather', arguments: { city: 'NYC' } },
      ],
    },
    { when: { user: 'refund' }, call: { tool: 'refund', arguments: { amount: 5 } } },
    { when: { user: 'slow' }, call: { tool: 'slow_lookup', arguments: {} } },
    { when: { user: 'price' }, call: { tool: 'lookup_price', arguments: { sku: 'B-2' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

/** Three server steps, then a client call: by the pause, the first step is out of a short window. */
const longTurn = {
  // The latest result decides (the model sees every result since the user spoke): latest first.
  rules: [
    { when: { tool_result: 'get_weather' }, say: 'Done: {{result}}' },
    { when: { tool_result: 'lookup_tax' }, call: { tool: 'get_weather', arguments: { city: 'SF' } } },
    { when: { tool_result: 'lookup_stock' }, call: { tool: 'lookup_tax', arguments: { sku: 'A-1' } } },
    { when: { tool_result: 'lookup_price' }, call: { tool: 'lookup_stock', arguments: { sku: 'A-1' } } },
    { when: { user: 'long chain' }, call: { tool: 'lookup_price', arguments: { sku: 'A-1' } } },
    { say: 'ok' },
  ],
};

describe('server-executed tools in the engine: mixed turns and approvals', () => {
  let server: TestBaton;
  const tools = new RecordingTools(serverTools, { slow_lookup: 5_000 });
  const thread = async (): Promise<string> => (await server.request('POST', '/v1/threads', { agent: 'desk' })).body.id;
  const say = (id: string, content: unknown) =>
    server.request('POST', `/v1/threads/${id}/messages`, { role: 'user', content });

  beforeAll(async () => {
    server = await startTestBaton(
      {
        scripted: { desk: program, short: longTurn },
        agents: [
          { name: 'desk', model: 'scripted:desk', tools: [weatherTool] },
          { name: 'short', model: 'scripted:short', tools: [weatherTool], history_limit: 4 },
        ],
      },
      { tools },
    );
  });
  afterAll(async () => server.close());

  it('runs the server call at once, pauses for the two client calls, and never runs it again on resume', async () => {
    const id = await thread();
    const paused = await say(id, 'mixed question');
    expect(paused.status).toBe(200);
    const pending = paused.body.choices[0].message.tool_calls;
    expect(pending.map((call: { name: string }) => call.name)).toEqual(['get_weather', 'get_weather']);
    expect(tools.runs.map((run) => run.tool.name)).toEqual(['lookup_price']);
    expect(tools.runs[0]?.arguments).toEqual({ sku: 'A-1' });

    const resumed = await say(
      id,
      pending.map((call: { id: string }, index: number) => ({
        type: 'tool_result',
        tool_call_id: call.id,
        content: `weather ${index}`,
      })),
    );
    expect(resumed.status).toBe(200);
    expect(resumed.body.choices[0].message.content).toContain('Done');
    expect(tools.runs).toHaveLength(1);

    // All three results entered the transcript as one message, in call order.
    const messages = (await server.request('GET', `/v1/threads/${id}/messages`)).body.data;
    const calls = messages.find((message: { tool_calls?: unknown[] }) => message.tool_calls?.length === 3);
    expect(
      calls.tool_calls.map((call: { name: string; executor?: string }) => [call.name, call.executor ?? 'client']),
    ).toEqual([
      ['get_weather', 'client'],
      ['lookup_price', 'server'],
      ['get_weather', 'client'],
    ]);
    const results = messages.find(
      (message: { role: string; content: unknown }) =>
        message.role === 'user' && Array.isArray(message.content) && message.content.length === 3,
    );
    expect(results.content.map((block: { tool_call_id: string }) => block.tool_call_id)).toEqual(
      calls.tool_calls.map((call: { id: string }) => call.id),
    );
    expect(results.content[1].content).toContain('"ran":"lookup_price"');
  });

  it('continues at once when a step has only server calls', async () => {
    const before = tools.runs.length;
    const answer = await say(await thread(), 'price please');
    expect(answer.body.choices[0].finish_reason).toBe('stop');
    expect(answer.body.choices[0].message.content).toContain('B-2');
    expect(tools.runs.length).toBe(before + 1);
  });

  it('turns a server call that overruns its timeout into an error result, and the turn goes on', async () => {
    const answer = await say(await thread(), 'slow one');
    expect(answer.body.choices[0].message.content).toMatch(/Failed: .*did not answer within 0.2 s/);
  });

  it('pauses for an approval; approving (with edited, re-validated arguments) runs the tool once and resumes', async () => {
    const id = await thread();
    const paused = await say(id, 'refund me');
    const [approval] = paused.body.choices[0].message.tool_calls;
    expect(approval).toMatchObject({ name: 'refund', kind: 'approval', input: { amount: 5 } });
    const runsBefore = tools.runs.length;
    // A result cannot stand in for the decision.
    const asResult = await server.request('POST', `/v1/tool-calls/${approval.id}/result`, { content: 'ok' });
    expect(asResult.status).toBe(409);
    expect(asResult.body.error.code).toBe('approval_required');
    const tooMuch = await server.request('POST', `/v1/tool-calls/${approval.id}/decision`, {
      approve: true,
      arguments: { amount: 500 },
    });
    expect(tooMuch.status).toBe(400);
    expect(tools.runs.length).toBe(runsBefore);

    const approved = await server.request('POST', `/v1/tool-calls/${approval.id}/decision`, {
      approve: true,
      arguments: { amount: 7 },
    });
    expect(approved.status).toBe(200);
    expect(approved.body.tool_call).toMatchObject({
      state: 'completed',
      submitted_by: expect.any(String),
      submitted_at: expect.any(String),
    });
    expect(approved.body.resumed).toBe(true);
    expect(approved.body.response.choices[0].message.content).toContain('"amount":7');
    expect(tools.runs.length).toBe(runsBefore + 1);
    const again = await server.request('POST', `/v1/tool-calls/${approval.id}/decision`, { approve: false });
    expect(again.status).toBe(409);
  });

  it('a resume whose turn began before the history window writes one output per call, no more', async () => {
    const id = (await server.request('POST', '/v1/threads', { agent: 'short' })).body.id;
    const paused = await say(id, 'a long chain please');
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const [call] = paused.body.choices[0].message.tool_calls;
    expect(call.name).toBe('get_weather');
    const resumed = await say(id, [{ type: 'tool_result', tool_call_id: call.id, content: 'sunny' }]);
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.choices[0].message.content).toContain('Done');

    // The first step's call and output are older than the window (5 items): that output, written
    // with its step, is not written again at the resume.
    const items = await server.baton.store.items.list(id, { limit: 100, cursor: null });
    const outputs = items.data.flatMap((item) =>
      item.payload.type === 'function_call_output' ? [item.payload.callId] : [],
    );
    const calls = items.data.flatMap((item) => (item.payload.type === 'function_call' ? [item.payload.callId] : []));
    expect(calls).toHaveLength(4);
    expect([...outputs].sort()).toEqual([...calls].sort());
  });

  it('denying writes an error result with the reason and who decided; the tool never runs', async () => {
    const id = await thread();
    const paused = await say(id, 'refund me');
    const [approval] = paused.body.choices[0].message.tool_calls;
    const runsBefore = tools.runs.length;
    const denied = await server.request('POST', `/v1/tool-calls/${approval.id}/decision`, {
      approve: false,
      reason: 'over the limit',
    });
    expect(denied.status).toBe(200);
    expect(denied.body.tool_call).toMatchObject({ state: 'denied', result: { is_error: true } });
    expect(denied.body.tool_call.result.content).toContain('over the limit');
    expect(denied.body.response.choices[0].message.content).toContain('Failed');
    expect(tools.runs.length).toBe(runsBefore);
  });
});
