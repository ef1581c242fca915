import type { LanguageModelV3 } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentService } from '../../src/resources/agents/agent-service.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { Engine } from '../../src/engine/engine.ts';
import { newId } from '../../src/domain/ids.ts';
import { autoProgram } from '../../src/models/scripted/auto-program.ts';
import { ScriptedLanguageModel } from '../../src/models/scripted/scripted-model.ts';
import { ensureDefaultApp } from '../../src/resources/apps/app-records.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';

/** A model call that lasts until released, like a slow provider. */
function slowModel(release: Promise<void>): LanguageModelV3 {
  const inner = new ScriptedLanguageModel('auto', autoProgram);
  return {
    ...inner,
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: {},
    doGenerate: (options) => inner.doGenerate(options),
    doStream: async (options) => {
      await release;
      return inner.doStream(options);
    },
  };
}

describe('turn heartbeat', () => {
  let store: Store | undefined;
  afterEach(async () => store?.close());

  it('keeps a long model call from looking orphaned, so recovery leaves it alone', async () => {
    store = await openStore({ kind: 'sqlite', filename: ':memory:' });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const model = slowModel(released);
    const engine = new Engine({ store, models: { resolve: () => model }, settings: { staleTurnSeconds: 3 } });
    const agents = new AgentService(store, systemClock, newId, () => {});
    const appId = await ensureDefaultApp(store);
    await agents.create(appId, { name: 'slow', model: 'scripted:auto' });
    const conversation = await engine.createConversation(appId, 'slow', {});
    const running = engine.sendMessage(
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
    const startedAt = state.activeTurn!.updatedAt;
    await new Promise((resolve) => setTimeout(resolve, 1_400));
    const beaten = (await store.turns.get(state.activeTurn!.id))!;
    expect(beaten.status).toBe('in_progress');
    expect(beaten.updatedAt > startedAt).toBe(true);

    release();
    const outcome = await running;
    expect('turn' in outcome && outcome.turn.status).toBe('completed');
  });
});
