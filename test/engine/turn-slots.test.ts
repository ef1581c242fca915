import type { LanguageModelV3 } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentService } from '../../src/resources/agents/agent-service.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { BatonError } from '../../src/domain/errors/baton-error.ts';
import { Engine } from '../../src/engine/engine.ts';
import { newId } from '../../src/domain/ids.ts';
import type { UserInput } from '../../src/engine/index.ts';
import { NO_APP_TOOLS, type ToolProvider } from '../../src/engine/index.ts';
import { autoProgram } from '../../src/models/scripted/auto-program.ts';
import { ScriptedLanguageModel } from '../../src/models/scripted/scripted-model.ts';
import { ensureDefaultApp, newAppRecord } from '../../src/resources/apps/app-records.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { withStreamHook } from '../helpers/stream-hook-model.ts';

/** The scripted model, whose streams wait for `gate` when the model id is `scripted:gated`. */
function models(gate: () => Promise<void>): { resolve(modelId: string): LanguageModelV3 } {
  return {
    resolve: (modelId) => {
      const inner = new ScriptedLanguageModel('auto', autoProgram);
      // The engine streams every step: a provider whose streams fail is down.
      if (modelId === 'scripted:broken') return withStreamHook(inner, () => Promise.reject(new Error('provider down')));
      if (modelId !== 'scripted:gated') return inner;
      return withStreamHook(inner, gate);
    },
  };
}

const approval = {
  name: 'request_approval',
  description: 'Asks a manager to approve a refund.',
  parameters: {
    type: 'object',
    properties: { action: { type: 'string' }, amount: { type: 'number' } },
    required: ['action', 'amount'],
  },
};

function text(content: string): UserInput {
  return {
    items: [{ type: 'message', role: 'user', content: [{ type: 'text', text: content }] }],
    options: { tools: [] },
  };
}

const submission = { submission: { actor: null, idempotencyKey: null } };

describe('turn slots: running turns per app and in all', () => {
  let store: Store | undefined;
  afterEach(async () => store?.close());

  async function setUp(settings: { turnsPerApp: number; turnsTotal: number }, tools: ToolProvider = NO_APP_TOOLS) {
    store = await openStore({ kind: 'sqlite', filename: ':memory:' });
    let open!: () => void;
    let gate = new Promise<void>((resolve) => (open = resolve));
    const engine = new Engine({ store, models: models(() => gate), tools, settings });
    const agents = new AgentService(store, systemClock, newId, () => {});
    const appA = await ensureDefaultApp(store);
    const other = newAppRecord('other', 'default', 'global', new Date().toISOString());
    await store.apps.insert(other);
    for (const appId of [appA, other.id]) {
      await agents.create(appId, { name: 'gated', model: 'scripted:gated' });
      await agents.create(appId, { name: 'desk', model: 'scripted:auto', tools: [approval] });
      await agents.create(appId, { name: 'broken', model: 'scripted:broken' });
      await agents.create(appId, { name: 'plain', model: 'scripted:auto' });
    }
    return {
      engine,
      store,
      appA,
      appB: other.id,
      /** Lets every held model call go on; later calls pass at once. */
      release: () => {
        open();
        gate = Promise.resolve();
      },
    };
  }

  /** Waits until the engine counts `count` running turns (the held calls reached the model). */
  async function runningReaches(engine: Engine, count: number): Promise<void> {
    for (let i = 0; i < 200 && engine.runningTurns() !== count; i++) await new Promise((r) => setTimeout(r, 10));
    expect(engine.runningTurns()).toBe(count);
  }

  it('refuses a new turn past the app’s cap before writing anything; another app still runs', async () => {
    const { engine, store: db, appA, appB, release } = await setUp({ turnsPerApp: 1, turnsTotal: 10 });
    const first = await engine.createConversation(appA, 'gated', {});
    const running = engine.sendMessage(appA, first.id, text('hello'), submission);
    await runningReaches(engine, 1);

    const second = await engine.createConversation(appA, 'gated', {});
    const refused = await engine.sendMessage(appA, second.id, text('hello'), submission).catch((error) => error);
    expect(refused).toBeInstanceOf(BatonError);
    expect(refused).toMatchObject({ code: 'too_many_turns', status: 429, retryAfterSeconds: 2 });
    // Nothing was written: the conversation is idle, with no turn and no items.
    expect((await engine.getConversationState(appA, second.id)).status).toBe('idle');
    expect((await db.items.list(second.id, { limit: 10, cursor: null })).data).toEqual([]);
    const fresh = await engine
      .startConversation(appA, 'gated', {}, text('hello'), submission)
      .catch((error: BatonError) => error.code);
    expect(fresh).toBe('too_many_turns');
    expect((await db.conversations.list({ appId: appA }, { limit: 10, cursor: null })).data).toHaveLength(2);

    const otherApp = await engine.createConversation(appB, 'plain', {});
    const outcome = await engine.sendMessage(appB, otherApp.id, text('hello'), submission);
    expect('turn' in outcome && outcome.turn.status).toBe('completed');

    release();
    await running;
    expect(engine.runningTurns(appA)).toBe(0);
    const again = await engine.sendMessage(appA, second.id, text('hello'), submission);
    expect('turn' in again && again.turn.status).toBe('completed');
  });

  it('the total cap refuses every app', async () => {
    const { engine, appA, appB, release } = await setUp({ turnsPerApp: 5, turnsTotal: 1 });
    const first = await engine.createConversation(appA, 'gated', {});
    const running = engine.sendMessage(appA, first.id, text('hello'), submission);
    await runningReaches(engine, 1);
    const other = await engine.createConversation(appB, 'desk', {});
    const refused = await engine.sendMessage(appB, other.id, text('hello'), submission).catch((error) => error);
    expect(refused).toMatchObject({ code: 'too_many_turns', message: expect.stringMatching(/limits\.turns_total/) });
    release();
    await running;
    expect(engine.runningTurns()).toBe(0);
  });

  it('frees the slot on every exit: finished, paused for a client tool, failed, thrown, detached', async () => {
    let crash = false;
    const tools: ToolProvider = {
      ...NO_APP_TOOLS,
      listTools: async (appId, agent) => {
        if (crash) throw new Error('tool catalog crashed');
        return NO_APP_TOOLS.listTools(appId, agent);
      },
    };
    const { engine, appA, release } = await setUp({ turnsPerApp: 1, turnsTotal: 1 }, tools);
    release();
    const conversation = async (agent: string) => (await engine.createConversation(appA, agent, {})).id;

    const finished = await engine.sendMessage(appA, await conversation('plain'), text('hello'), submission);
    expect('turn' in finished && finished.turn.status).toBe('completed');
    expect(engine.runningTurns()).toBe(0);

    const paused = await engine.sendMessage(
      appA,
      await conversation('desk'),
      text('I need a refund of 500'),
      submission,
    );
    expect('turn' in paused && paused.turn.status).toBe('requires_action');
    expect(engine.runningTurns()).toBe(0);

    const failed = await engine.sendMessage(appA, await conversation('broken'), text('hello'), submission);
    expect('turn' in failed && failed.turn.status).toBe('failed');
    expect(engine.runningTurns()).toBe(0);

    crash = true;
    await expect(engine.sendMessage(appA, await conversation('desk'), text('hello'), submission)).rejects.toThrow(
      /tool catalog crashed/,
    );
    expect(engine.runningTurns()).toBe(0);
    crash = false;

    const listenerCrash = engine.sendMessage(appA, await conversation('desk'), text('hello'), {
      ...submission,
      listener: () => {
        throw new Error('the face crashed');
      },
    });
    await expect(listenerCrash).rejects.toThrow(/the face crashed/);
    expect(engine.runningTurns()).toBe(0);

    await engine.sendMessage(appA, await conversation('desk'), text('hello'), { ...submission, detach: true });
    await engine.idle();
    expect(engine.runningTurns()).toBe(0);
  });

  it('a detached turn counts while it runs in the background', async () => {
    const { engine, appA, release } = await setUp({ turnsPerApp: 1, turnsTotal: 10 });
    const first = await engine.createConversation(appA, 'gated', {});
    await engine.sendMessage(appA, first.id, text('hello'), { ...submission, detach: true });
    expect(engine.runningTurns(appA)).toBe(1);
    const second = await engine.createConversation(appA, 'desk', {});
    await expect(engine.sendMessage(appA, second.id, text('hello'), submission)).rejects.toMatchObject({
      code: 'too_many_turns',
    });
    release();
    await engine.idle();
    expect(engine.runningTurns(appA)).toBe(0);
  });

  it('results refused at the cap leave the calls pending; a last answer through the ledger resumes even at the cap', async () => {
    const { engine, appA, release } = await setUp({ turnsPerApp: 1, turnsTotal: 10 });
    const desk = await engine.createConversation(appA, 'desk', {});
    const paused = await engine.sendMessage(appA, desk.id, text('I need a refund of 500'), submission);
    const callId = 'turn' in paused ? paused.pendingCalls[0]!.id : '';

    const holder = await engine.createConversation(appA, 'gated', {});
    const running = engine.sendMessage(appA, holder.id, text('hello'), submission);
    await runningReaches(engine, 1);

    const result = {
      callId,
      output: [{ type: 'text' as const, text: '{"approved":true}' }],
      isError: false,
      param: 'content[0]',
    };
    await expect(engine.submitResults(appA, desk.id, [result], submission)).rejects.toMatchObject({
      code: 'too_many_turns',
    });
    expect((await engine.getConversationState(appA, desk.id)).pendingCalls.map((entry) => entry.id)).toEqual([callId]);

    // An answer recorded on its own is accepted work: its turn resumes and is counted, not refused.
    const answered = await engine.submitCallResult(appA, callId, result, submission);
    expect(answered.outcome?.turn.status).toBe('completed');
    release();
    await running;
    expect(engine.runningTurns()).toBe(0);
  });
});
