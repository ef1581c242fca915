import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { testPrograms, weatherAgent } from '../helpers/test-agents.ts';

/** Every bad request gets a precise error and leaves the thread exactly as it was. */
describe('Threads API: bad input', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({
      bodyLimitBytes: 64 * 1024,
      scripted: testPrograms,
      // The strict agent refuses partial results, as the seed's rule says (others hold them: 202).
      agents: [DEMO_AGENT, weatherAgent, { ...weatherAgent, name: 'weather-strict', partial_results: 'reject' }],
    });
  });
  afterAll(async () => server.close());

  async function snapshot(threadId: string) {
    const thread = await server.request('GET', `/v1/threads/${threadId}`);
    const messages = await server.request('GET', `/v1/threads/${threadId}/messages`);
    return { thread: thread.body, messages: messages.body };
  }

  async function pendingThread(agent = 'refund-desk', text = 'I need approval to process a $500 refund') {
    const thread = await server.request('POST', '/v1/threads', { agent });
    const message = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: text });
    expect(message.body.choices[0].finish_reason).toBe('tool_use');
    return {
      threadId: thread.body.id as string,
      calls: message.body.choices[0].message.tool_calls as { id: string }[],
    };
  }

  function result(id: string, content = 'ok') {
    return { type: 'tool_result', tool_call_id: id, content };
  }

  it('unknown tool_call_id: 400 "Invalid tool_call_id", state unchanged', async () => {
    const { threadId, calls } = await pendingThread();
    const before = await snapshot(threadId);
    const response = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [result('call_made_up')],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_tool_call_id');
    expect(response.body.error.message).toContain('Invalid tool_call_id');
    expect(response.body.error.message).toContain(calls[0]!.id);
    expect(response.body.error.param).toBe('content[0].tool_call_id');
    expect(await snapshot(threadId)).toEqual(before);
  });

  it("a result for another thread's call is refused", async () => {
    const first = await pendingThread();
    const second = await pendingThread();
    const before = await snapshot(first.threadId);
    const response = await server.request('POST', `/v1/threads/${first.threadId}/messages`, {
      content: [result(second.calls[0]!.id)],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_tool_call_id');
    expect(await snapshot(first.threadId)).toEqual(before);
    expect((await server.request('GET', `/v1/tool-calls/${second.calls[0]!.id}`)).body.state).toBe('pending');
  });

  it('missing results of a parallel set in one message (agent partial_results: reject): 400 naming the missing ids', async () => {
    const { threadId, calls } = await pendingThread('weather-strict', 'weather in SF and NYC');
    expect(calls).toHaveLength(2);
    const before = await snapshot(threadId);
    const response = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [result(calls[0]!.id)],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('missing_tool_results');
    expect(response.body.error.missing_tool_call_ids).toEqual([calls[1]!.id]);
    expect(await snapshot(threadId)).toEqual(before);
  });

  it('duplicate results for one call: 400', async () => {
    const { threadId, calls } = await pendingThread();
    const before = await snapshot(threadId);
    const response = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [result(calls[0]!.id), result(calls[0]!.id, 'again')],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('duplicate_tool_result');
    expect(await snapshot(threadId)).toEqual(before);
  });

  it('a second submit after completion: 409, and results to a thread that is not pending: 409', async () => {
    const { threadId, calls } = await pendingThread();
    const first = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: [result(calls[0]!.id)] });
    expect(first.status).toBe(200);
    const before = await snapshot(threadId);
    const again = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [result(calls[0]!.id, 'changed my mind')],
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('tool_call_already_resolved');
    const viaLedger = await server.request('POST', `/v1/tool-calls/${calls[0]!.id}/result`, { content: 'late' });
    expect(viaLedger.status).toBe(409);
    expect(await snapshot(threadId)).toEqual(before);
    const idle = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const notPending = await server.request('POST', `/v1/threads/${idle.body.id}/messages`, {
      content: [result(calls[0]!.id)],
    });
    expect(notPending.status).toBe(400);
    expect(notPending.body.error.code).toBe('invalid_tool_call_id');
    expect(notPending.body.error.message).toContain('no pending tool calls');
  });

  it('malformed JSON, wrong content type and oversized bodies', async () => {
    const { threadId } = await pendingThread();
    const before = await snapshot(threadId);
    const malformed = await server.request('POST', `/v1/threads/${threadId}/messages`, '{"content": [', {
      'content-type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_json');
    const text = await server.request('POST', `/v1/threads/${threadId}/messages`, 'hello', {
      'content-type': 'text/plain',
    });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
    const huge = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'x'.repeat(70 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('body_too_large');
    expect(huge.body.error.message).toContain('65536');
    const wrongShape = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [{ type: 'tool_result' }],
    });
    expect(wrongShape.status).toBe(400);
    expect(wrongShape.body.error.param).toBe('content[0].tool_call_id');
    const unknownField = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: 'hi',
      colour: 'red',
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.message).toContain("'colour'");
    const mixed = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [{ type: 'text', text: 'hi' }, result('call_x')],
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.code).toBe('mixed_content');
    expect(await snapshot(threadId)).toEqual(before);
  });

  it('invalid tool names and more than 128 tools are refused, per request and per agent', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const before = await snapshot(thread.body.id);
    const badName = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'hello',
      tools: [{ name: 'bad name!', parameters: { type: 'object' } }],
    });
    expect(badName.status).toBe(400);
    expect(badName.body.error.code).toBe('invalid_tool_name');
    expect(badName.body.error.param).toBe('tools[0].name');
    const many = Array.from({ length: 129 }, (_, index) => ({ name: `tool_${index}`, parameters: { type: 'object' } }));
    const tooMany = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'hello',
      tools: many,
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('too_many_tools');
    const duplicate = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'hello',
      tools: [
        { name: 'a', parameters: { type: 'object' } },
        { name: 'a', parameters: { type: 'object' } },
      ],
    });
    expect(duplicate.body.error.code).toBe('duplicate_tool_name');
    expect(await snapshot(thread.body.id)).toEqual(before);
    const agent = await server.request('POST', '/v1/agents', {
      name: 'bad-agent',
      model: 'scripted:auto',
      tools: [{ name: 'x'.repeat(65) }],
    });
    expect(agent.status).toBe(400);
    expect(agent.body.error.code).toBe('invalid_tool_name');
    expect((await server.request('GET', '/v1/agents/bad-agent')).status).toBe(404);
  });

  it("missing or wrong API key: 401; another app's thread: 404", async () => {
    const { threadId } = await pendingThread();
    const missing = await fetch(`${server.url}/v1/threads/${threadId}`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
    const wrong = await server.request('GET', `/v1/threads/${threadId}`, undefined, {
      authorization: 'Bearer bk_wrong',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_api_key');
    const otherApp = await server.request('POST', '/v1/apps', { name: 'other-app' });
    expect(otherApp.status).toBe(201);
    const otherKey = otherApp.body.api_key.key as string;
    const asOther = { authorization: `Bearer ${otherKey}` };
    const foreign = await server.request('GET', `/v1/threads/${threadId}`, undefined, asOther);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('thread_not_found');
    const foreignPost = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'hi' }, asOther);
    expect(foreignPost.status).toBe(404);
    const pendingCalls = await server.request('GET', '/v1/tool-calls?state=pending', undefined, asOther);
    expect(pendingCalls.body.data).toEqual([]);
    const otherAgent = await server.request('POST', '/v1/threads', { agent: 'refund-desk' }, asOther);
    expect(otherAgent.status).toBe(404);
    expect(otherAgent.body.error.code).toBe('agent_not_found');
  });

  it('unknown routes and bad query parameters answer in the same error format', async () => {
    const route = await server.request('GET', '/v1/nothing-here');
    expect(route.status).toBe(404);
    expect(route.body.error.code).toBe('route_not_found');
    const limit = await server.request('GET', '/v1/tool-calls?limit=0');
    expect(limit.status).toBe(400);
    expect(limit.body.error.param).toBe('limit');
    const cursor = await server.request('GET', '/v1/tool-calls?after=garbage');
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.code).toBe('invalid_cursor');
  });
});
