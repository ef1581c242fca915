import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** The seed document's whole flow, over real HTTP, with the demo agent and the scripted model. */
describe('Threads API: the seed flow', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton();
  });
  afterAll(async () => server.close());

  it('pauses on request_approval, shows the thread pending, and resumes with the tool_result', async () => {
    const created = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    expect(created.status).toBe(200);
    expect(created.body.id).toMatch(/^thread_/);
    expect(created.body.status).toBe('idle');
    const threadId = created.body.id as string;

    const first = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      role: 'user',
      content: 'I need approval to process a $500 refund',
    });
    expect(first.status).toBe(200);
    expect(first.body.thread_id).toBe(threadId);
    const choice = first.body.choices[0];
    expect(choice.finish_reason).toBe('tool_use');
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls[0];
    expect(call).toMatchObject({
      type: 'function',
      name: 'request_approval',
      input: { action: 'refund', amount: 500 },
    });
    expect(call.id).toMatch(/^call_/);

    const pending = await server.request('GET', `/v1/threads/${threadId}`);
    expect(pending.body.status).toBe('pending');
    expect(pending.body.pending_tool_calls.map((c: { id: string }) => c.id)).toEqual([call.id]);

    const second = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_call_id: call.id,
          content: '{"approved": true, "approved_by": "manager@company.com"}',
        },
      ],
    });
    expect(second.status).toBe(200);
    expect(second.body.choices[0].finish_reason).toBe('stop');
    expect(second.body.choices[0].message.tool_calls).toBeUndefined();
    expect(second.body.choices[0].message.content).toContain('manager@company.com');

    const idle = await server.request('GET', `/v1/threads/${threadId}`);
    expect(idle.body.status).toBe('idle');
    expect(idle.body.pending_tool_calls).toEqual([]);

    const messages = await server.request('GET', `/v1/threads/${threadId}/messages`);
    expect(messages.status).toBe(200);
    const roles = messages.body.data.map((m: { role: string }) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages.body.data[0].content).toBe('I need approval to process a $500 refund');
    expect(messages.body.data[1].tool_calls[0].id).toBe(call.id);
    expect(messages.body.data[2].content[0]).toMatchObject({ type: 'tool_result', tool_call_id: call.id });
    expect(messages.body.data[3].content).toContain('manager@company.com');

    const ledger = await server.request('GET', `/v1/tool-calls/${call.id}`);
    expect(ledger.body).toMatchObject({
      id: call.id,
      state: 'completed',
      thread_id: threadId,
      agent: 'refund-desk',
      name: 'request_approval',
    });
    expect(ledger.body.submitted_by).toMatch(/^key_/);
  });

  it('accepts the key as x-api-key and role "tool" for results, as the seed shows both', async () => {
    const created = await server.request(
      'POST',
      '/v1/threads',
      { agent: 'refund-desk' },
      { authorization: '', 'x-api-key': server.key },
    );
    expect(created.status).toBe(200);
    const first = await server.request('POST', `/v1/threads/${created.body.id}/messages`, {
      content: 'refund of 20 dollars please',
    });
    const callId = first.body.choices[0].message.tool_calls[0].id;
    const second = await server.request('POST', `/v1/threads/${created.body.id}/messages`, {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          tool_call_id: callId,
          content: 'Order #12345 was not found or is not eligible for refund.',
          is_error: true,
        },
      ],
    });
    expect(second.status).toBe(200);
    expect(second.body.choices[0].message.content).toMatch(/error/i);
    const entry = await server.request('GET', `/v1/tool-calls/${callId}`);
    expect(entry.body.state).toBe('failed');
    expect(entry.body.result).toEqual({
      content: 'Order #12345 was not found or is not eligible for refund.',
      is_error: true,
    });
  });
});
