import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { runSession, toolResponse } from '../faces/ces/sessions/session-fixtures.ts';
import { APP, create, mixedProgram, PriceApi, weatherClientFunction } from './server-tool-fixtures.ts';

/**
 * The check: one model step with one server call (an OpenAPI tool on a real HTTP API)
 * and two client calls, through each face, with Baton's own tool provider. The API's request
 * count proves the server call runs once, whatever the client does afterwards.
 */
describe('a mixed turn (one server call, two client calls) through every face', () => {
  let baton: TestBaton;
  const api = new PriceApi();

  beforeAll(async () => {
    await api.start();
    baton = await startTestBaton({ scripted: { mixed: mixedProgram }, egressAllow: ['127.0.0.1/32'] });
    await create(baton, 'tools?toolId=weather', weatherClientFunction);
    await create(baton, 'tools?toolId=price', { openApiTool: { openApiSchema: api.document() } });
    await create(baton, 'agents?agentId=desk', {
      displayName: 'Desk',
      instruction: 'Help.',
      modelSettings: { model: 'scripted:mixed' },
      tools: [`${APP}/tools/weather`, `${APP}/tools/price`],
    });
    const app = await baton.request('PATCH', `/v1/${APP}?updateMask=rootAgent`, { rootAgent: `${APP}/agents/desk` });
    expect(app.status, JSON.stringify(app.body)).toBe(200);
  });
  afterAll(async () => {
    await baton?.close();
    await api.close();
  });

  it('Threads: the server call runs at once, the turn pauses for the two client calls, and resumes without running it again', async () => {
    const before = api.requests.length;
    const thread = (await baton.request('POST', '/v1/threads', { agent: 'desk' })).body.id;
    const paused = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'mixed' });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const pending = paused.body.choices[0].message.tool_calls;
    expect(pending.map((call: { name: string }) => call.name)).toEqual(['get_weather', 'get_weather']);
    expect(api.requests.slice(before).map((request) => request.url)).toEqual(['/prices/A-1']);

    const results = pending.map((call: { id: string }, index: number) => ({
      type: 'tool_result',
      tool_call_id: call.id,
      content: `sunny ${index}`,
    }));
    const resumed = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: results });
    expect(resumed.body.choices[0].message.content).toContain('Done');
    expect(api.requests.length).toBe(before + 1);

    const messages = (await baton.request('GET', `/v1/threads/${thread}/messages`)).body.data;
    const step = messages.find((message: { tool_calls?: unknown[] }) => message.tool_calls?.length === 3);
    expect(
      step.tool_calls.map((call: { name: string; executor?: string }) => [call.name, call.executor ?? 'client']),
    ).toEqual([
      ['get_weather', 'client'],
      ['lookup_price', 'server'],
      ['get_weather', 'client'],
    ]);
    const outputs = messages.find(
      (message: { role: string; content: unknown }) =>
        message.role === 'user' && Array.isArray(message.content) && message.content.length === 3,
    );
    expect(outputs.content.map((block: { tool_call_id: string }) => block.tool_call_id)).toEqual(
      step.tool_calls.map((call: { id: string }) => call.id),
    );
    expect(JSON.parse(outputs.content[1].content)).toEqual({ sku: 'A-1', price: 42 });
  });

  it('Responses (official openai client): client calls are function_call items, the server call a baton:tool_call with its result', async () => {
    const before = api.requests.length;
    const client = new OpenAI({ baseURL: `${baton.url}/v1`, apiKey: baton.key, maxRetries: 0 });
    const first = await client.responses.create({ model: 'desk', input: 'mixed' });
    const types = first.output.map((item) => item.type as string);
    expect(types.filter((type) => type === 'function_call')).toHaveLength(2);
    const serverCall = first.output.find((item) => (item.type as string) === 'baton:tool_call') as unknown as {
      call_id: string;
      name: string;
      executor: string;
    };
    expect(serverCall).toMatchObject({ name: 'lookup_price', executor: 'server' });
    const serverResult = first.output.find((item) => (item.type as string) === 'baton:tool_result') as unknown as {
      call_id: string;
      output: string;
      is_error: boolean;
    };
    expect(serverResult).toMatchObject({ call_id: serverCall.call_id, is_error: false });
    expect(JSON.parse(serverResult.output)).toEqual({ sku: 'A-1', price: 42 });
    expect(api.requests.length).toBe(before + 1);

    const outputs = first.output.flatMap((item) =>
      item.type === 'function_call'
        ? [{ type: 'function_call_output' as const, call_id: item.call_id, output: 'sunny' }]
        : [],
    );
    const second = await client.responses.create({ model: 'desk', previous_response_id: first.id, input: outputs });
    expect(second.output_text).toContain('Done');
    expect(api.requests.length).toBe(before + 1);
  });

  it('CES sessions: toolCalls name only the client functions; diagnosticInfo shows the server call and its response', async () => {
    const before = api.requests.length;
    const paused = await runSession(baton, 'mixed-1', [{ text: 'mixed' }]);
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const calls = paused.body.outputs.flatMap(
      (output: { toolCalls?: { toolCalls: any[] } }) => output.toolCalls?.toolCalls ?? [],
    );
    expect(calls.map((call: { displayName: string; tool: string }) => [call.displayName, call.tool])).toEqual([
      ['get_weather', `${APP}/tools/weather`],
      ['get_weather', `${APP}/tools/weather`],
    ]);
    expect(api.requests.length).toBe(before + 1);

    const done = await runSession(baton, 'mixed-1', [
      { toolResponses: { toolResponses: calls.map((call: any) => toolResponse(call, { output: 'sunny' })) } },
    ]);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const last = done.body.outputs[done.body.outputs.length - 1];
    expect(last.turnCompleted).toBe(true);
    expect(done.body.outputs.map((output: { text?: string }) => output.text ?? '').join('')).toContain('Done');
    const chunks = last.diagnosticInfo.messages.flatMap((message: { chunks: any[] }) => message.chunks);
    const serverCall = chunks.find((chunk: any) => chunk.toolCall)?.toolCall;
    expect(serverCall).toMatchObject({ tool: `${APP}/tools/price`, displayName: 'lookup_price', args: { sku: 'A-1' } });
    const serverResponse = chunks.find((chunk: any) => chunk.toolResponse)?.toolResponse;
    expect(serverResponse).toMatchObject({ id: serverCall.id, tool: `${APP}/tools/price` });
    expect(JSON.stringify(serverResponse.response)).toContain('42');
    expect(api.requests.length).toBe(before + 1);
  });
});
