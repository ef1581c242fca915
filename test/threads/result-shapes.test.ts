import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

const SEED = 'I need approval to process a $500 refund';

/** The seed's request_approval, whose results must fit its response schema. */
const strictDesk = {
  ...DEMO_AGENT,
  name: 'strict-desk',
  tools: DEMO_AGENT.tools!.map((tool) => ({ ...tool, enforce_response_schema: true })),
};

/**
 * What a tool result may look like: a string (or content blocks), never an object, which is the
 * seeds' most common mistake; and, for a tool that enforces its response schema, JSON valid
 * against that schema. A refused result changes nothing: the call is still pending.
 */
describe('Threads API: the shape of a tool result', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({ agents: [DEMO_AGENT, strictDesk] });
  });
  afterAll(async () => server.close());

  async function pendingCall(agent: string) {
    const thread = await server.request('POST', '/v1/threads', { agent });
    const paused = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: SEED });
    expect(paused.body.choices[0].finish_reason).toBe('tool_use');
    return { threadId: thread.body.id as string, callId: paused.body.choices[0].message.tool_calls[0].id as string };
  }

  const answer = (threadId: string, block: Record<string, unknown>) =>
    server.request('POST', `/v1/threads/${threadId}/messages`, { role: 'user', content: [block] });

  it('a result sent as an object (the seed\'s "content": {"approved": true}) names the field and says to stringify', async () => {
    const { threadId, callId } = await pendingCall('refund-desk');
    const refused = await answer(threadId, { type: 'tool_result', tool_call_id: callId, content: { approved: true } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('content[0].content');
    expect(refused.body.error.message).toContain('must be a string');
    expect(refused.body.error.message).toContain('JSON.stringify');
    expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('pending');

    // The same mistake through the ledger.
    const ledger = await server.request('POST', `/v1/tool-calls/${callId}/result`, { content: { approved: true } });
    expect(ledger.status).toBe(400);
    expect(ledger.body.error.message).toContain('JSON.stringify');
    // And a whole message sent as an object.
    const whole = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: { approved: true } });
    expect(whole.status).toBe(400);
    expect(whole.body.error.param).toBe('content');
  });

  it('a tool that enforces its response schema refuses a result that does not fit, naming the field', async () => {
    const { threadId, callId } = await pendingCall('strict-desk');
    const wrongType = await answer(threadId, {
      type: 'tool_result',
      tool_call_id: callId,
      content: JSON.stringify({ approved: 'yes', approved_by: 'manager@company.com' }),
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatchObject({ code: 'invalid_tool_result', param: 'content[0]' });
    expect(wrongType.body.error.message).toContain("'approved' must be boolean");
    const notJson = await answer(threadId, { type: 'tool_result', tool_call_id: callId, content: 'approved' });
    expect(notJson.body.error.code).toBe('invalid_tool_result');
    expect(notJson.body.error.message).toContain('not JSON');
    const missing = await server.request('POST', `/v1/tool-calls/${callId}/result`, {
      content: JSON.stringify({ approved: true }),
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('invalid_tool_result');
    expect(missing.body.error.message).toContain('approved_by');
    expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('pending');

    const fits = await answer(threadId, {
      type: 'tool_result',
      tool_call_id: callId,
      content: JSON.stringify({ approved: true, approved_by: 'manager@company.com' }),
    });
    expect(fits.status, JSON.stringify(fits.body)).toBe(200);
    expect(fits.body.choices[0].finish_reason).toBe('stop');
  });

  it('an error result is not checked against the schema', async () => {
    const { callId } = await pendingCall('strict-desk');
    const failed = await server.request('POST', `/v1/tool-calls/${callId}/result`, {
      content: 'The approval service is down.',
      is_error: true,
    });
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body.tool_call.state).toBe('failed');
  });

  it('a tool cannot enforce a response schema it does not have', async () => {
    const refused = await server.request('POST', '/v1/agents', {
      name: 'no-schema',
      model: 'scripted:auto',
      tools: [{ name: 'lookup', parameters: { type: 'object' }, enforce_response_schema: true }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_tool_response_schema',
      param: 'tools[0].enforce_response_schema',
    });
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const perRequest = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'hello',
      tools: [{ name: 'lookup', enforce_response_schema: true }],
    });
    expect(perRequest.status).toBe(400);
    expect(perRequest.body.error.param).toBe('tools[0].enforce_response_schema');
  });
});
