import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { ManualClock, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** Deadlines per call: tool timeout, agent default, request override; the three policies. */
describe('deadlines', () => {
  const clock = new ManualClock();
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton(
      {
        agents: [
          DEMO_AGENT,
          { ...DEMO_AGENT, name: 'expiring', tool_timeout_seconds: 60 },
          { ...DEMO_AGENT, name: 'strict', tool_timeout_seconds: 60, timeout_policy: 'fail' },
          { ...DEMO_AGENT, name: 'canceller', tool_timeout_seconds: 60, timeout_policy: 'cancel' },
          {
            ...DEMO_AGENT,
            name: 'per-tool',
            tool_timeout_seconds: 3600,
            tools: DEMO_AGENT.tools!.map((tool) => ({ ...tool, timeout_seconds: 10 })),
          },
        ],
      },
      { clock },
    );
  });
  afterAll(async () => server.close());

  async function pending(agent: string, extra: Record<string, unknown> = {}) {
    const thread = await server.request('POST', '/v1/threads', { agent });
    const message = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'refund of $20',
      ...extra,
    });
    const call = message.body.choices[0].message.tool_calls[0] as { id: string };
    return { threadId: thread.body.id as string, callId: call.id };
  }

  it('error_result (default): a synthetic is_error result, then the turn resumes', async () => {
    const { threadId, callId } = await pending('expiring');
    const entry = (await server.request('GET', `/v1/tool-calls/${callId}`)).body;
    expect(Date.parse(entry.deadline_at) - Date.parse(entry.created_at)).toBe(60_000);
    clock.advance(59);
    expect(await server.baton.engine.applyDueDeadlines()).toBe(0);
    clock.advance(2);
    expect(await server.baton.engine.applyDueDeadlines()).toBe(1);
    await server.baton.engine.idle();
    const expired = (await server.request('GET', `/v1/tool-calls/${callId}`)).body;
    expect(expired.state).toBe('expired');
    expect(expired.result.is_error).toBe(true);
    expect(expired.submitted_by).toBe('baton:deadline');
    const thread = (await server.request('GET', `/v1/threads/${threadId}`)).body;
    expect(thread.status).toBe('idle');
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data;
    expect(messages[2].content[0]).toMatchObject({ tool_call_id: callId, is_error: true, synthetic: true });
    expect(messages[3].role).toBe('assistant');
    expect(messages[3].content).toMatch(/error/i);
    const late = await server.request('POST', `/v1/tool-calls/${callId}/result`, { content: 'too late' });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain('expired');
  });

  it('fail: the turn fails, the thread is idle, history stays valid', async () => {
    const { threadId, callId } = await pending('strict');
    clock.advance(61);
    expect(await server.baton.engine.applyDueDeadlines()).toBe(1);
    expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('expired');
    expect((await server.request('GET', `/v1/threads/${threadId}`)).body.status).toBe('idle');
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data;
    expect(messages).toHaveLength(3);
    expect(messages[2].content[0]).toMatchObject({ tool_call_id: callId, synthetic: true });
    const next = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'hello' });
    expect(next.status).toBe(200);
  });

  it('cancel: the turn is cancelled', async () => {
    const { threadId, callId } = await pending('canceller');
    clock.advance(61);
    await server.baton.engine.applyDueDeadlines();
    expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('expired');
    const turnId = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data[0].turn_id;
    expect((await server.baton.engine.getTurn(server.baton.defaultAppId, turnId)).status).toBe('cancelled');
  });

  it('a tool timeout beats the agent default, and a request override beats both', async () => {
    const tool = await pending('per-tool');
    const toolEntry = (await server.request('GET', `/v1/tool-calls/${tool.callId}`)).body;
    expect(Date.parse(toolEntry.deadline_at) - Date.parse(toolEntry.created_at)).toBe(10_000);
    const request = await pending('per-tool', { tool_timeout_seconds: 5 });
    const requestEntry = (await server.request('GET', `/v1/tool-calls/${request.callId}`)).body;
    expect(Date.parse(requestEntry.deadline_at) - Date.parse(requestEntry.created_at)).toBe(5_000);
    const none = await pending('refund-desk');
    expect((await server.request('GET', `/v1/tool-calls/${none.callId}`)).body.deadline_at).toBeNull();
  });
});
