import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** What a process that died mid-way leaves behind is repaired by the sweeper's passes. */
describe('recovery of turns a dead process left behind', () => {
  const clock = new ManualClock();
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({}, { clock });
  });
  afterAll(async () => server.close());

  it('resumes a turn whose calls were all answered but whose resume never started', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const message = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'refund of $20' });
    const callId = message.body.choices[0].message.tool_calls[0].id as string;
    // The answer committed, then the process died before resuming.
    await server.baton.store.ledger.resolve(callId, {
      state: 'completed',
      result: [{ type: 'text', text: 'approved' }],
      isError: false,
      submittedBy: 'test',
      submittedAt: clock.now().toISOString(),
      idempotencyKey: null,
    });
    expect(await server.baton.engine.resumeStrandedTurns()).toBe(0); // within the grace period
    clock.advance(31);
    expect(await server.baton.engine.resumeStrandedTurns()).toBe(1);
    await server.baton.engine.idle();
    const messages = (await server.request('GET', `/v1/threads/${thread.body.id}/messages`)).body.data;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect((await server.request('GET', `/v1/threads/${thread.body.id}`)).body.status).toBe('idle');
  });

  it('fails a turn left in_progress by a dead process, so its thread is usable again', async () => {
    const { engine, store } = server.baton;
    const conversation = await engine.createConversation(server.baton.defaultAppId, 'refund-desk', {});
    const agent = (await store.agents.get(server.baton.defaultAppId, 'refund-desk'))!;
    const now = clock.now().toISOString();
    await store.transaction(async (tx) => {
      await tx.conversations.compareAndSet(conversation.id, conversation.version, { activeTurnId: 'turn_orphan', headTurnId: 'turn_orphan', updatedAt: now });
      await tx.turns.insert({
        id: 'turn_orphan',
        appId: server.baton.defaultAppId,
        conversationId: conversation.id,
        agentId: agent.id,
        agentVersion: agent.version,
        status: 'in_progress',
        options: { tools: [] },
        finishReason: null,
        error: null,
        stepCount: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      });
    });
    expect((await server.request('GET', `/v1/threads/${conversation.id}`)).body.status).toBe('running');
    const busy = await server.request('POST', `/v1/threads/${conversation.id}/messages`, { content: 'hello' });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('thread_busy');
    expect(await engine.recoverStaleTurns()).toBe(0);
    clock.advance(601);
    expect(await engine.recoverStaleTurns()).toBe(1);
    const turn = await engine.getTurn(server.baton.defaultAppId, 'turn_orphan');
    expect(turn.status).toBe('failed');
    expect(turn.error?.code).toBe('interrupted');
    const next = await server.request('POST', `/v1/threads/${conversation.id}/messages`, { content: 'refund of $5' });
    expect(next.status).toBe(200);
  });
});
