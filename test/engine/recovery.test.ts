import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/engine.ts';
import type { Store } from '../../src/store/store.ts';
import { createBaton } from '../../src/server/start-baton.ts';
import { ManualClock, startTestBaton, testConfig, type TestBaton } from '../helpers/test-baton.ts';
import { claimCutOffCall, DEAD_LEASE, orphanTurn } from '../helpers/orphaned-turns.ts';

/** A refund request whose turn a dead process left `in_progress` (see `orphanTurn`). */
function orphanRefund(engine: Engine, store: Store, appId: string, turnId: string, now: string, takeovers = 0) {
  return orphanTurn(engine, store, appId, 'refund-desk', { turnId, now, text: 'I need a refund of $20', takeovers });
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

  it('takes over a turn left in_progress by a dead process and continues it from its last step', async () => {
    const { engine, store } = server.baton;
    const appId = server.baton.defaultAppId;
    const threadId = await orphanRefund(engine, store, appId, 'turn_orphan', clock.now().toISOString());
    expect((await server.request('GET', `/v1/threads/${threadId}`)).body.status).toBe('running');
    const busy = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'hello' });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('thread_busy');
    expect(await engine.recoverStaleTurns()).toBe(0); // its lease has not run out
    clock.advance(601);
    expect(await engine.recoverStaleTurns()).toBe(1);
    // A second pass while the taken turn runs here does not take it again.
    clock.advance(601);
    expect(await engine.recoverStaleTurns()).toBe(0);
    await engine.idle();
    const turn = await engine.getTurn(appId, 'turn_orphan');
    // The model was asked again and called the manager: the turn goes on as if nothing happened.
    expect(turn).toMatchObject({ status: 'requires_action', takeovers: 1, error: null });
    expect(turn.leaseToken).not.toBe(DEAD_LEASE);
    const thread = await server.request('GET', `/v1/threads/${threadId}`);
    expect(thread.body.status).toBe('pending');
    expect(thread.body.pending_tool_calls.map((call: { name: string }) => call.name)).toEqual(['request_approval']);
    // The dead process's run is fenced: a write under its lease changes nothing.
    const stale = await store.turns.update(
      'turn_orphan',
      ['in_progress', 'requires_action'],
      {
        status: 'completed',
        updatedAt: clock.now().toISOString(),
      },
      DEAD_LEASE,
    );
    expect(stale).toBeUndefined();
    expect((await engine.getTurn(appId, 'turn_orphan')).status).toBe('requires_action');
  });

  it('fails a turn taken over max_turn_takeovers times already, so a turn that kills its process stops', async () => {
    const { engine, store } = server.baton;
    const appId = server.baton.defaultAppId;
    const threadId = await orphanRefund(engine, store, appId, 'turn_poison', clock.now().toISOString(), 2);
    clock.advance(601);
    expect(await engine.recoverStaleTurns()).toBe(1);
    const turn = await engine.getTurn(appId, 'turn_poison');
    expect(turn.status).toBe('failed');
    expect(turn.error?.code).toBe('interrupted');
    expect(turn.error?.message).toContain('taken over 2 times already (engine.max_turn_takeovers)');
    const next = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'refund of $5' });
    expect(next.status).toBe(200);
  });

  it('records a server call the dead process had claimed as an unknown outcome before the model goes on', async () => {
    const { engine, store } = server.baton;
    const appId = server.baton.defaultAppId;
    const now = clock.now().toISOString();
    const threadId = await orphanRefund(engine, store, appId, 'turn_cut', now);
    await claimCutOffCall(
      store,
      {
        id: 'call_cut_off',
        appId,
        conversationId: threadId,
        turnId: 'turn_cut',
        agentName: 'refund-desk',
        toolName: 'issue_refund',
        arguments: { amount: 20 },
      },
      now,
    );
    clock.advance(601);
    expect(await engine.recoverStaleTurns()).toBe(1);
    await engine.idle();
    const entry = await server.request('GET', '/v1/tool-calls/call_cut_off');
    expect(entry.status, JSON.stringify(entry.body)).toBe(200);
    expect(entry.body).toMatchObject({ state: 'failed', submitted_by: 'baton:recovery' });
    expect(entry.body.result.content).toContain('whether it took effect is unknown');
    expect(await store.serverClaims.listByTurn('turn_cut')).toEqual([]);
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data;
    // The user's message, the cut-off call and its result, then the model's next step.
    expect(messages[1].tool_calls.map((call: { id: string }) => call.id)).toEqual(['call_cut_off']);
    expect(messages[2].content[0]).toMatchObject({ tool_call_id: 'call_cut_off', is_error: true });
    expect(messages.map((message: { role: string }) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect((await engine.getTurn(appId, 'turn_cut')).status).toBe('completed');
  });

  it('on the embedded SQLite default, a restart takes over every turn the dead process left running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-restart-'));
    try {
      const options = { store: { kind: 'sqlite' as const, filename: join(dir, 'baton.db') }, sweeper: false };
      const first = await createBaton(testConfig(), options);
      const threadId = await orphanRefund(
        first.engine,
        first.store,
        first.defaultAppId,
        'turn_killed',
        new Date().toISOString(),
      );
      await first.close();
      const second = await createBaton(testConfig(), options);
      try {
        await second.engine.idle();
        const turn = await second.engine.getTurn(second.defaultAppId, 'turn_killed');
        expect(turn).toMatchObject({ status: 'requires_action', takeovers: 1 });
        expect((await second.engine.getConversationState(second.defaultAppId, threadId)).status).toBe('pending');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
