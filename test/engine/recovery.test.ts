import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import type { Store } from '../../src/store/store.ts';
import { createBaton } from '../../src/server/start-baton.ts';
import { ManualClock, startTestBaton, testConfig, type TestBaton } from '../helpers/test-baton.ts';

/** Leaves a turn `in_progress` as a process killed mid-model-call would. */
async function orphanTurn(engine: Engine, store: Store, appId: string, turnId: string, now: string): Promise<string> {
  const conversation = await engine.createConversation(appId, 'refund-desk', {});
  const agent = (await store.agents.get(appId, 'refund-desk'))!;
  await store.transaction(async (tx) => {
    await tx.conversations.compareAndSet(conversation.id, conversation.version, {
      activeTurnId: turnId,
      headTurnId: turnId,
      updatedAt: now,
    });
    await tx.turns.insert({
      id: turnId,
      appId,
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
  return conversation.id;
}

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
    const message = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'refund of $20',
    });
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
    const conversationId = await orphanTurn(
      engine,
      store,
      server.baton.defaultAppId,
      'turn_orphan',
      clock.now().toISOString(),
    );
    const conversation = { id: conversationId };
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

  it('on the embedded SQLite default, a restart closes every turn the dead process left running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-restart-'));
    try {
      const options = { store: { kind: 'sqlite' as const, filename: join(dir, 'baton.db') }, sweeper: false };
      const first = await createBaton(testConfig(), options);
      const threadId = await orphanTurn(
        first.engine,
        first.store,
        first.defaultAppId,
        'turn_killed',
        new Date().toISOString(),
      );
      await first.close();
      const second = await createBaton(testConfig(), options);
      try {
        const turn = await second.engine.getTurn(second.defaultAppId, 'turn_killed');
        expect(turn.status).toBe('failed');
        expect(turn.error?.code).toBe('interrupted');
        expect((await second.engine.getConversationState(second.defaultAppId, threadId)).status).toBe('idle');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
