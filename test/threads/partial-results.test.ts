import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentDefinition } from '../../src/resources/agents/agent-definition.ts';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { testPrograms, weatherAgent } from '../helpers/test-agents.ts';

/**
 * Results of a parallel set sent in separate messages, as the SipPulse seed's "Wrong — Separate
 * messages" example does: Baton holds each in the ledger (202 naming the calls still pending) and
 * gives the model one message with every result, in call order, once the set is complete.
 */
describe('Threads API: partial results are held until the set is complete', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({ scripted: testPrograms, agents: [DEMO_AGENT, weatherAgent] });
  });
  afterAll(async () => server.close());

  async function pausedOnTwoCalls() {
    const thread = await server.request('POST', '/v1/threads', { agent: 'weather' });
    const paused = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      role: 'user',
      content: 'What is the weather in SF and NYC?',
    });
    expect(paused.body.choices[0].finish_reason).toBe('tool_use');
    const [sf, nyc] = paused.body.choices[0].message.tool_calls as { id: string }[];
    return { threadId: thread.body.id as string, sf: sf!.id, nyc: nyc!.id };
  }

  /** The seed's separate messages: one tool_result block each. */
  const send = (threadId: string, callId: string, content: string) =>
    server.request('POST', `/v1/threads/${threadId}/messages`, {
      role: 'user',
      content: [{ type: 'tool_result', tool_call_id: callId, content }],
    });

  it('answers 202 naming the pending calls, then resumes with both results as one message', async () => {
    const { threadId, sf, nyc } = await pausedOnTwoCalls();
    const first = await send(threadId, sf, 'San Francisco: 68°F, partly cloudy');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      object: 'thread.tool_results.held',
      thread_id: threadId,
      status: 'pending',
      held_tool_call_ids: [sf],
      pending_tool_call_ids: [nyc],
    });
    // The held result is in the ledger; the thread still waits for the other call only.
    expect((await server.request('GET', `/v1/tool-calls/${sf}`)).body).toMatchObject({ state: 'completed' });
    const thread = await server.request('GET', `/v1/threads/${threadId}`);
    expect(thread.body.status).toBe('pending');
    expect(thread.body.pending_tool_calls.map((call: { id: string }) => call.id)).toEqual([nyc]);
    // A result cannot be sent twice.
    expect((await send(threadId, sf, 'again')).body.error.code).toBe('tool_call_already_resolved');

    const last = await send(threadId, nyc, 'New York: 45°F, clear skies');
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body.choices[0].finish_reason).toBe('stop');

    // The model saw the set answered together: one message with both results, in call order.
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data as {
      role: string;
      content: unknown;
    }[];
    const results = messages.filter(
      (message) => Array.isArray(message.content) && message.content.some((block) => block.type === 'tool_result'),
    );
    expect(results).toHaveLength(1);
    expect(results[0]!.content).toEqual([
      { type: 'tool_result', tool_call_id: sf, content: 'San Francisco: 68°F, partly cloudy' },
      { type: 'tool_result', tool_call_id: nyc, content: 'New York: 45°F, clear skies' },
    ]);
  });

  it('two last results arriving at once resume the turn once', async () => {
    const { threadId, sf, nyc } = await pausedOnTwoCalls();
    const answers = await Promise.all([send(threadId, sf, 'sunny'), send(threadId, nyc, 'rainy')]);
    const statuses = answers.map((answer) => answer.status).sort();
    // One request resumes the turn and answers; the other is held, with nothing left pending.
    expect(statuses).toEqual([200, 202]);
    const held = answers.find((answer) => answer.status === 202)!;
    expect(held.body.pending_tool_call_ids.length).toBeLessThanOrEqual(1);
    const thread = await server.request('GET', `/v1/threads/${threadId}`);
    expect(thread.body.status).toBe('idle');
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data as {
      role: string;
      content: unknown;
    }[];
    // The call message, one results message, one answer: the turn ran once.
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('a streamed partial result answers the same 202 as JSON', async () => {
    const { threadId, sf, nyc } = await pausedOnTwoCalls();
    const first = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      stream: true,
      content: [{ type: 'tool_result', tool_call_id: sf, content: 'sunny' }],
    });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ held_tool_call_ids: [sf], pending_tool_call_ids: [nyc] });
  });

  it('agents choose: partial_results reject keeps the strict 400, and anything else is refused', async () => {
    const strict = await server.request('POST', '/v1/agents', {
      ...weatherAgent,
      name: 'weather-by-the-rules',
      partial_results: 'reject',
    });
    expect(strict.status, JSON.stringify(strict.body)).toBe(201);
    expect(strict.body.partial_results).toBe('reject');
    expect((await server.request('GET', '/v1/agents/weather')).body.partial_results).toBe('hold');
    const bad = await server.request('POST', '/v1/agents', { ...weatherAgent, name: 'odd', partial_results: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('partial_results');
    expect(() =>
      buildAgentDefinition({ name: 'odd', model: 'scripted:auto', partialResults: 'maybe' as 'hold' }, () => {}),
    ).toThrow(expect.objectContaining({ code: 'invalid_partial_results' }));
  });
});
