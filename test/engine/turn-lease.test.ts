import type { LanguageModelV3 } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentService } from '../../src/resources/agents/agent-service.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { Engine } from '../../src/engine/engine.ts';
import { newId } from '../../src/domain/ids.ts';
import { ensureDefaultApp } from '../../src/resources/apps/app-records.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { slowModel } from '../helpers/slow-model.ts';

/**
 * The lease of a running turn: its heartbeat renews it while a long model call runs, so nobody
 * takes the turn over; a run that lost it to a takeover (another process found the turn silent
 * and continues it) cannot write: its step commit is refused, and its heartbeat stops its model call.
 */
describe('turn lease', () => {
  let store: Store | undefined;
  afterEach(async () => store?.close());

  /** A turn of a slow model, running: its lease is renewed every second (a third of 3 s). */
  async function startSlowTurn(model: LanguageModelV3) {
    store = await openStore({ kind: 'sqlite', filename: ':memory:' });
    const engine = new Engine({ store, models: { resolve: () => model }, settings: { staleTurnSeconds: 3 } });
    const agents = new AgentService(store, systemClock, newId, () => {});
    const appId = await ensureDefaultApp(store);
    await agents.create(appId, { name: 'slow', model: 'scripted:auto' });
    const conversation = await engine.createConversation(appId, 'slow', {});
    const outcome = engine.sendMessage(
      appId,
      conversation.id,
      {
        items: [{ type: 'message', role: 'user', content: [{ type: 'text', text: 'hello' }] }],
        options: { tools: [] },
      },
      { submission: { actor: null, idempotencyKey: null } },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const state = await engine.getConversationState(appId, conversation.id);
    expect(state.status).toBe('running');
    const turn = state.activeTurn!;
    expect(turn.leaseToken).toMatch(/^lease_/);
    return { store, turn, outcome };
  }

  /** A turn taken over by another process, as its recovery would once the turn looks silent. */
  async function runningTurn(model: LanguageModelV3) {
    const started = await startSlowTurn(model);
    const taken = await started.store.turns.takeOver(
      started.turn.id,
      '9999-01-01T00:00:00.000Z',
      'lease_of_another',
      new Date().toISOString(),
    );
    expect(taken).toMatchObject({ leaseToken: 'lease_of_another', takeovers: 1, status: 'in_progress' });
    return started;
  }

  it('keeps a long model call from looking orphaned, so recovery leaves it alone', async () => {
    let release!: () => void;
    const model = slowModel(new Promise<void>((resolve) => (release = resolve)));
    const { store, turn, outcome } = await startSlowTurn(model);
    await new Promise((resolve) => setTimeout(resolve, 1_400));
    const beaten = (await store.turns.get(turn.id))!;
    expect(beaten.status).toBe('in_progress');
    expect(beaten.updatedAt > turn.updatedAt).toBe(true);
    expect(beaten.leaseToken).toBe(turn.leaseToken);
    release();
    const result = await outcome;
    expect('turn' in result && result.turn.status).toBe('completed');
  });

  it('refuses the step commit of a run whose turn was taken over', async () => {
    let release!: () => void;
    const model = slowModel(new Promise<void>((resolve) => (release = resolve)));
    const { store, turn, outcome } = await runningTurn(model);
    release();
    const result = await outcome;
    expect('turn' in result && result.turn).toMatchObject({ status: 'in_progress', leaseToken: 'lease_of_another' });
    // Only the user's input: the fenced step wrote no answer.
    expect((await store.items.listByTurn(turn.id)).map((item) => item.payload.type)).toEqual(['message']);
    expect((await store.turns.get(turn.id))?.stepCount).toBe(0);
  });

  it('stops the model call of a run whose heartbeat finds the lease gone', async () => {
    const model = slowModel(new Promise<void>(() => {}));
    const { store, turn, outcome } = await runningTurn(model);
    // The heartbeat beats every second (a third of the 3 s lease); its refused renewal aborts.
    const result = await outcome;
    expect(model.aborted).toBe(true);
    expect('turn' in result && result.turn.leaseToken).toBe('lease_of_another');
    expect(await store.items.listByTurn(turn.id)).toHaveLength(1);
  });

  it('lets only one of two processes take a silent turn over', async () => {
    let release!: () => void;
    const model = slowModel(new Promise<void>((resolve) => (release = resolve)));
    const { store, turn, outcome } = await runningTurn(model);
    const now = new Date().toISOString();
    // The first takeover touched the turn: it is no longer silent since a moment ago.
    expect(
      await store.turns.takeOver(turn.id, new Date(Date.now() - 1_000).toISOString(), 'lease_third', now),
    ).toBeUndefined();
    release();
    await outcome;
  });
});
