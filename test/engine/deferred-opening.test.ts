import type { LanguageModelV3, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/clock.ts';
import { newId } from '../../src/domain/ids.ts';
import { Engine, isQueuedOutcome, type RunOptions } from '../../src/engine/engine.ts';
import type { TurnOutcome } from '../../src/engine/turn-runner.ts';
import { autoProgram } from '../../src/models/scripted/auto-program.ts';
import { ScriptedLanguageModel } from '../../src/models/scripted/scripted-model.ts';
import { agentFromWire } from '../../src/resources/agents/agent-config-form.ts';
import { AgentService } from '../../src/resources/agents/agent-service.ts';
import { ensureDefaultApp } from '../../src/resources/apps/app-records.ts';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { slowModel } from '../helpers/slow-model.ts';
import { withStreamHook } from '../helpers/stream-hook-model.ts';

/**
 * A request that waits for its answer and watches no events has its input (or its results)
 * written with the run's first step: one commit per request. Everything that needs it stored
 * earlier gets it stored earlier, and a run that loses the conversation to another writer leaves
 * nothing behind.
 */

const SEED = 'I need approval to process a $500 refund';
const APPROVAL = '{"approved": true, "approved_by": "manager@company.com"}';
const submission = { actor: null, idempotencyKey: null };

interface Setup {
  store: Store;
  engine: Engine;
  appId: string;
  /** Commits of the store so far (transactions that ran to the end). */
  commits(): number;
}

describe('the opening of a run is written with its first step', () => {
  let store: Store | undefined;
  afterEach(async () => store?.close());

  async function start(model: LanguageModelV3, deferredOpeningMs = 250, shared?: Store): Promise<Setup> {
    store = shared ?? (await openStore({ kind: 'sqlite', filename: ':memory:' }));
    const opened = store;
    let commits = 0;
    const transaction = opened.transaction.bind(opened);
    opened.transaction = async (work) => {
      const result = await transaction(work);
      commits += 1;
      return result;
    };
    const engine = new Engine({ store: opened, models: { resolve: () => model }, settings: { deferredOpeningMs } });
    const appId = await ensureDefaultApp(opened);
    if (!(await opened.agents.get(appId, DEMO_AGENT.name)))
      await new AgentService(opened, systemClock, newId, () => {}).create(appId, agentFromWire(DEMO_AGENT));
    return { store: opened, engine, appId, commits: () => commits };
  }

  function send(setup: Setup, conversationId: string, text = SEED, options: Partial<RunOptions> = {}) {
    return setup.engine.sendMessage(
      setup.appId,
      conversationId,
      { items: [{ type: 'message', role: 'user', content: [{ type: 'text', text }] }], options: { tools: [] } },
      { submission, ...options },
    );
  }

  function settled(outcome: Awaited<ReturnType<typeof send>>): TurnOutcome {
    if (isQueuedOutcome(outcome)) throw new Error('unexpected queued input');
    return outcome;
  }

  const fastModel = () => new ScriptedLanguageModel('auto', autoProgram);

  /** A message whose first model step waits until `release()`; resolves once the model was asked. */
  async function slowRun(deferredOpeningMs: number) {
    let release = () => {};
    const model = slowModel(new Promise<void>((resolve) => (release = resolve)));
    const setup = await start(model, deferredOpeningMs);
    const conversation = await setup.engine.createConversation(setup.appId, DEMO_AGENT.name, {});
    const outcome = send(setup, conversation.id);
    await until(() => model.calls === 1);
    return { setup, model, release, conversation, outcome };
  }

  it('commits a message and its first step together, and a results message with the step it resumes', async () => {
    const setup = await start(fastModel());
    const conversation = await setup.engine.createConversation(setup.appId, DEMO_AGENT.name, {});
    const before = setup.commits();
    const paused = settled(await send(setup, conversation.id));
    expect(paused.turn.status).toBe('requires_action');
    expect(setup.commits() - before).toBe(1);

    const call = paused.pendingCalls[0]!;
    const afterPause = setup.commits();
    const answered = await setup.engine.submitResults(
      setup.appId,
      conversation.id,
      [{ callId: call.id, output: [{ type: 'text', text: APPROVAL }], isError: false, param: 'content[0]' }],
      { submission },
    );
    expect(answered.turn.status).toBe('completed');
    expect(setup.commits() - afterPause).toBe(1);

    // Everything is stored, in order: the input, the call, its result, the answer.
    const items = await setup.store.items.list(conversation.id, { limit: 100, cursor: null });
    expect(items.data.map((item) => item.payload.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'message',
    ]);
    expect((await setup.store.ledger.get(setup.appId, call.id))?.state).toBe('completed');
    const stored = await setup.store.conversations.get(setup.appId, conversation.id);
    expect(stored?.activeTurnId).toBeNull();
  });

  it('with deferred_write_ms 0, writes the opening before the model is asked (two commits)', async () => {
    const setup = await start(fastModel(), 0);
    const conversation = await setup.engine.createConversation(setup.appId, DEMO_AGENT.name, {});
    const before = setup.commits();
    settled(await send(setup, conversation.id));
    expect(setup.commits() - before).toBe(2);
  });

  it('writes the opening of a slow first step alone after the delay, so the turn is seen running', async () => {
    const { setup, release, conversation, outcome } = await slowRun(100);
    // Read from the store, not through the engine (which would write the opening on reading).
    const stored = () => setup.store.conversations.get(setup.appId, conversation.id);
    expect((await stored())?.activeTurnId).toBeNull();
    await until(async () => (await stored())?.activeTurnId != null);
    expect((await setup.store.turns.get((await stored())!.activeTurnId!))?.status).toBe('in_progress');
    release();
    expect(settled(await outcome).turn.status).toBe('requires_action');
  });

  it('a window read that the opening was written during holds the input once, not twice', async () => {
    const prompts: string[][] = [];
    const model = withStreamHook(fastModel(), (options) => {
      prompts.push(options.prompt.filter((message) => message.role === 'user').map((message) => userText(message)));
    });
    const setup = await start(model, 60_000);
    const conversation = await setup.engine.createConversation(setup.appId, DEMO_AGENT.name, {});
    // The first step's read of the history: a reader of the conversation (a GET) writes the
    // unwritten opening before the read reaches the database, which then returns the input.
    const listWindow = setup.store.items.listWindow.bind(setup.store.items);
    let raced = false;
    setup.store.items.listWindow = async (conversationId, limit, atVersion) => {
      if (!raced && atVersion !== undefined) {
        raced = true;
        await setup.engine.getConversationState(setup.appId, conversation.id);
        return listWindow(conversationId, limit);
      }
      return listWindow(conversationId, limit, atVersion);
    };
    expect(settled(await send(setup, conversation.id)).turn.status).toBe('requires_action');
    expect(raced).toBe(true);
    expect(prompts).toEqual([[SEED]]);
  });

  it('a reader in this process sees the unwritten turn: a second message gets thread_busy at once', async () => {
    // A delay far beyond the test: only the reader makes the opening stored.
    const { setup, model, release, conversation, outcome } = await slowRun(60_000);
    const state = await setup.engine.getConversationState(setup.appId, conversation.id);
    expect(state.status).toBe('running');
    await expect(send(setup, conversation.id, 'hello again')).rejects.toMatchObject({ code: 'thread_busy' });
    expect(model.calls).toBe(1);
    release();
    expect(settled(await outcome).turn.status).toBe('requires_action');
  });

  it('a cancel while the opening is unwritten cancels the turn, as for any running turn', async () => {
    const { setup, model, conversation, outcome } = await slowRun(60_000);
    const cancelled = await setup.engine.cancel(setup.appId, conversation.id, null);
    expect(cancelled.turn.status).toBe('cancelled');
    expect(settled(await outcome).turn.status).toBe('cancelled');
    expect(model.aborted).toBe(true);
  });

  it('a run that loses the conversation to another process stores nothing and reports why', async () => {
    const { setup, release, conversation, outcome } = await slowRun(60_000);
    // Another replica on the same database starts a turn meanwhile (it knows nothing of ours).
    const other = new Engine({
      store: setup.store,
      models: { resolve: fastModel },
      settings: { deferredOpeningMs: 0 },
    });
    const theirs = settled(await send({ ...setup, engine: other }, conversation.id));
    expect(theirs.turn.status).toBe('requires_action');
    release();
    // Ours is refused at its commit; re-reading, the engine gives the precise reason.
    await expect(outcome).rejects.toMatchObject({ code: 'tool_calls_pending' });
    const items = await setup.store.items.list(conversation.id, { limit: 100, cursor: null });
    expect(items.data.map((item) => item.turnId)).toEqual([theirs.turn.id, theirs.turn.id]);
  });

  it('a failing first step still stores the input, with the turn failed', async () => {
    const failing = fastModel();
    failing.doStream = async () => {
      throw new Error('provider down');
    };
    const setup = await start(failing);
    const conversation = await setup.engine.createConversation(setup.appId, DEMO_AGENT.name, {});
    const outcome = settled(await send(setup, conversation.id, 'hello'));
    expect(outcome.turn.status).toBe('failed');
    const items = await setup.store.items.list(conversation.id, { limit: 100, cursor: null });
    expect(items.data.map((item) => item.payload.type)).toEqual(['message']);
    expect((await setup.store.turns.get(outcome.turn.id))?.status).toBe('failed');
  });

  it('streamed and detached runs write their opening before the model is asked', async () => {
    let shared: Store | undefined;
    for (const options of [{ listener: () => {} }, { detach: true }] satisfies Partial<RunOptions>[]) {
      let release = () => {};
      const model = slowModel(new Promise<void>((resolve) => (release = resolve)));
      const setup = await start(model, 60_000, shared);
      shared = setup.store;
      const conversation = await setup.engine.createConversation(setup.appId, DEMO_AGENT.name, {});
      const outcome = send(setup, conversation.id, SEED, options);
      await until(() => model.calls === 1);
      const stored = await setup.store.conversations.get(setup.appId, conversation.id);
      expect(stored?.activeTurnId, JSON.stringify(Object.keys(options))).not.toBeNull();
      release();
      await outcome;
      await setup.engine.idle();
    }
  });
});

async function until(check: () => boolean | Promise<boolean>, withinMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function userText(message: LanguageModelV3Prompt[number]): string {
  if (message.role !== 'user') return '';
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
