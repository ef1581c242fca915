import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import {
  chatCompletionChunks,
  errorReply,
  startFakeOpenAIServer,
  type FakeOpenAIServer,
} from '../models/fake-openai-server.ts';

/**
 * The whole pause/resume loop through a real provider adapter (`openai-compatible:`) against a
 * local fake server: what Baton sends after a pause must be a valid OpenAI transcript.
 */
describe('an agent on an OpenAI-compatible server', () => {
  let fake: FakeOpenAIServer;
  let server: TestBaton;
  let failNext = 0;
  beforeAll(async () => {
    fake = await startFakeOpenAIServer((request) => {
      if (failNext > 0) {
        failNext -= 1;
        return errorReply(503, 'overloaded', { 'retry-after-ms': '1' });
      }
      const messages = request.body.messages as { role: string; content: unknown }[];
      const last = messages[messages.length - 1]!;
      if (last.role === 'tool') {
        return { kind: 'sse', events: chatCompletionChunks({ text: `Approved: ${String(last.content)}` }) };
      }
      return {
        kind: 'sse',
        events: chatCompletionChunks({
          toolCalls: [
            { id: 'provider_call_1', name: 'request_approval', arguments: { action: 'refund', amount: 500 } },
          ],
        }),
      };
    });
    server = await startTestBaton({
      maxModelRetries: 2,
      providers: { 'openai-compatible': { baseURL: fake.baseURL } },
      agents: [
        {
          name: 'real-desk',
          model: 'openai-compatible:test-model',
          instructions: 'Ask for approval first.',
          tools: [
            {
              name: 'request_approval',
              description: 'Approval',
              parameters: {
                type: 'object',
                properties: { action: { type: 'string' }, amount: { type: 'number' } },
                required: ['action', 'amount'],
              },
            },
          ],
        },
      ],
    });
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });

  it('pauses on the streamed tool call and resumes with a valid tool message', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'real-desk' });
    const first = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'I need approval to process a $500 refund',
    });
    expect(first.body.choices[0].finish_reason).toBe('tool_use');
    const call = first.body.choices[0].message.tool_calls[0];
    expect(call).toMatchObject({ name: 'request_approval', input: { action: 'refund', amount: 500 } });
    expect(call.id).toMatch(/^call_/);

    const firstRequest = fake.requests[fake.requests.length - 1]!;
    expect(firstRequest.body.model).toBe('test-model');
    expect(firstRequest.body.stream).toBe(true);
    expect(firstRequest.body.messages[0]).toEqual({ role: 'system', content: 'Ask for approval first.' });
    expect(firstRequest.body.tools[0].function.name).toBe('request_approval');

    const second = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: [{ type: 'tool_result', tool_call_id: call.id, content: 'yes' }],
    });
    expect(second.body.choices[0].message.content).toBe('Approved: yes');
    const resumeRequest = fake.requests[fake.requests.length - 1]!;
    const roles = resumeRequest.body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool']);
    // The provider sees its own call id back, consistently in the call and its result.
    expect(resumeRequest.body.messages[2].tool_calls[0].id).toBe('provider_call_1');
    expect(resumeRequest.body.messages[3].tool_call_id).toBe('provider_call_1');
  });

  it("uses Baton's call ids when the provider's repeat within the history (servers that number calls per step)", async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'real-desk' });
    const ids: string[] = [];
    for (const answer of ['one', 'two']) {
      const paused = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'refund' });
      const call = paused.body.choices[0].message.tool_calls[0];
      ids.push(call.id);
      await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
        content: [{ type: 'tool_result', tool_call_id: call.id, content: answer }],
      });
    }
    const last = fake.requests[fake.requests.length - 1]!;
    const callIds = last.body.messages.flatMap((m: { tool_calls?: { id: string }[] }) =>
      (m.tool_calls ?? []).map((c) => c.id),
    );
    const resultIds = last.body.messages.flatMap((m: { role: string; tool_call_id?: string }) =>
      m.role === 'tool' ? [m.tool_call_id] : [],
    );
    // Both steps' calls came as 'provider_call_1': the prompt keeps them apart with Baton's ids.
    expect(callIds).toEqual(ids);
    expect(resultIds).toEqual(ids);
  });

  it('retries a provider 503 with backoff and carries on', async () => {
    failNext = 2;
    const thread = await server.request('POST', '/v1/threads', { agent: 'real-desk' });
    const before = fake.requests.length;
    const response = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'refund' });
    expect(response.body.choices[0].finish_reason).toBe('tool_use');
    expect(fake.requests.length - before).toBe(3);
  });
});
