import { describe, expect, it } from 'vitest';
import { toModelPrompt } from '../../src/engine/model-prompt.ts';
import type { ItemPayload } from '../../src/domain/records.ts';
import type { WindowItem } from '../../src/domain/queries.ts';

/** A small deterministic generator, so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const MODELS = ['openai:gpt-5', 'anthropic:claude', 'scripted:auto'];

/**
 * A conversation of random turns: user messages (now and then a system message), steps of one or
 * more calls (parallel ones share a group), reasoning signed by the model of the step, provider call
 * ids that sometimes repeat, results in order, asynchronous calls answered by a placeholder and
 * later by a late result in another turn, calls whose only result comes in another turn, and text
 * answers.
 */
function conversation(seed: number, turns: number, { usual = false } = {}): WindowItem[] {
  const next = random(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const items: WindowItem[] = [];
  let seq = 0;
  let id = 0;
  const add = (groupId: string, payload: ItemPayload) => items.push({ seq: ++seq, groupId, payload });
  const lateResults: ItemPayload[] = [];
  for (let turn = 0; turn < turns; turn++) {
    if (next() < 0.1)
      add(`s${turn}`, { type: 'message', role: 'system', content: [{ type: 'text', text: `rule ${turn}` }] });
    add(`u${turn}`, { type: 'message', role: 'user', content: [{ type: 'text', text: `question ${turn}` }] });
    if (lateResults.length > 0 && next() < 0.5) add(`late${turn}`, lateResults.shift()!);
    const steps = Math.floor(next() * 3);
    for (let step = 0; step < steps; step++) {
      const model = pick(MODELS);
      const group = `a${turn}_${step}`;
      if (next() < 0.3)
        add(group, { type: 'reasoning', text: 'thinking', provider: { model, metadata: { [model]: { sig: group } } } });
      const calls = 1 + Math.floor(next() * 3);
      const made: string[] = [];
      for (let call = 0; call < calls; call++) {
        const callId = `call_${++id}`;
        made.push(callId);
        const providerId = usual ? `p_${id}` : `p_${Math.floor(next() * 6)}`;
        const provider = next() < 0.7 ? { model, metadata: {}, callId: providerId } : undefined;
        add(group, {
          type: 'function_call',
          callId,
          name: pick(['lookup', 'refund']),
          arguments: `{"n":${id}}`,
          executor: 'client',
          ...(provider ? { provider } : {}),
        });
      }
      for (const callId of made) {
        const result = (isError: boolean): ItemPayload => ({
          type: 'function_call_output',
          callId,
          name: 'lookup',
          output: [{ type: 'text', text: `result ${callId}` }],
          isError,
          synthetic: false,
        });
        if (!usual && next() < 0.1) {
          // Its only result comes in a later turn.
          lateResults.push(result(false));
          continue;
        }
        add(`r${turn}_${step}`, result(next() < 0.2));
        if (!usual && next() < 0.15) lateResults.push(result(false));
      }
    }
    if (next() < 0.8)
      add(`t${turn}`, {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: `answer ${turn}` }],
        provider: { model: pick(MODELS), metadata: {} },
      });
  }
  return items;
}

describe('prompts made from windows a step shares with the one before', () => {
  it('are what converting every item again makes, whatever the window, the model and the history', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const items = conversation(seed, 60);
      const next = random(seed * 7919);
      // Windows sliding over the conversation as steps do, the same item objects from one to the next.
      for (let end = 1; end <= items.length; end += 1 + Math.floor(next() * 3)) {
        const window = items.slice(Math.max(0, end - 40 - Math.floor(next() * 20)), end);
        const model = MODELS[Math.floor(next() * MODELS.length)]!;
        const reused = toModelPrompt('Be brief.', window, model);
        // Fresh objects: nothing made for earlier windows applies to them.
        const fresh = toModelPrompt('Be brief.', structuredClone(window), model);
        expect(reused, `seed ${seed}, items up to ${end}, ${model}`).toEqual(fresh);
      }
    }
  });

  it('shares the messages of segments it took as they were', () => {
    const items = conversation(3, 30);
    const first = toModelPrompt('', items, 'scripted:auto');
    const again = toModelPrompt('', items, 'scripted:auto');
    expect(again).toEqual(first);
    // The messages of segments whose results answer their own calls are the same objects: they
    // were not made again (a segment with a late result is, each time).
    const shared = again.filter((message, index) => message === first[index]).length;
    expect(shared).toBeGreaterThan(again.length / 3);
  });
});

/** Items that note when their payload is read: which items a conversion looked at. */
function watched(items: readonly WindowItem[]): { items: WindowItem[]; read: Set<number> } {
  const read = new Set<number>();
  const wrapped = items.map(({ seq, groupId, payload }, index) => ({
    seq,
    groupId,
    get payload() {
      read.add(index);
      return payload;
    },
  }));
  return { items: wrapped, read };
}

describe("prompts continued from the previous step's", () => {
  /** Steps as the engine takes them: the latest 100 items, cut to start at a user message. */
  function steps(seed: number, usual: boolean): { windowItems: number; readItems: number } {
    const { items, read } = watched(conversation(seed, 120, { usual }));
    const next = random(seed * 104_729);
    let model = MODELS[0]!;
    let windowItems = 0;
    let readItems = 0;
    for (let end = 1; end <= items.length; end += 1 + Math.floor(next() * 4)) {
      // The model changes now and then (an agent update), the instructions once.
      if (next() < 0.05) model = MODELS[Math.floor(next() * MODELS.length)]!;
      const instructions = end > items.length / 2 ? 'Be brief.' : 'Be kind.';
      const latest = items.slice(Math.max(0, end - 100), end);
      const start = latest.findIndex((item) => item.payload.type === 'message' && item.payload.role === 'user');
      const window = end > 100 && start > 0 ? latest.slice(start) : latest;
      read.clear();
      const continued = toModelPrompt(instructions, window, model);
      readItems += read.size;
      windowItems += window.length;
      const plain = window.map(({ seq, groupId, payload }) => ({ seq, groupId, payload }));
      const fresh = toModelPrompt(instructions, structuredClone(plain), model);
      expect(continued, `seed ${seed}, items up to ${end}, ${model}`).toEqual(fresh);
    }
    return { windowItems, readItems };
  }

  it('are what converting the window afresh makes, whatever the history', () => {
    // Repeated provider ids, late results, system messages: most steps are converted whole.
    for (let seed = 1; seed <= 12; seed++) steps(seed, false);
  });

  it('are what converting afresh makes, reading only the new items of a usual conversation', () => {
    let windowItems = 0;
    let readItems = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const counts = steps(seed, true);
      windowItems += counts.windowItems;
      readItems += counts.readItems;
    }
    // Converting each window whole reads every item of it; continuing, the new ones and the last
    // segment they extend.
    expect(readItems).toBeLessThan(windowItems / 4);
  });

  it('are not changed by what a model did to the prompt it was given before', () => {
    const items = conversation(9, 40, { usual: true });
    const given = toModelPrompt('Be brief.', items.slice(0, 60), 'scripted:auto');
    // A careless model reorders and cuts the array it was handed (never the messages).
    given.reverse();
    given.splice(3, 5);
    // The next step's window starts at the second user message: it continues the one before.
    const second = items.findIndex(
      (item, index) => index > 0 && item.payload.type === 'message' && item.payload.role === 'user',
    );
    const next = items.slice(second, 66);
    expect(toModelPrompt('Be brief.', next, 'scripted:auto')).toEqual(
      toModelPrompt('Be brief.', structuredClone(next), 'scripted:auto'),
    );
  });

  it('are not continued from a window that holds the same last items after other ones', () => {
    const items = conversation(5, 20, { usual: true });
    toModelPrompt('', items, 'scripted:auto');
    // The same objects from the second user message on, other ones before (a fork, say).
    const second = items.findIndex(
      (item, index) => index > 0 && item.payload.type === 'message' && item.payload.role === 'user',
    );
    const before = structuredClone(items.slice(0, second));
    before[0] = {
      ...before[0]!,
      payload: { type: 'message', role: 'user', content: [{ type: 'text', text: 'other' }] },
    };
    const other = [...before, ...items.slice(second)];
    expect(toModelPrompt('', other, 'scripted:auto')).toEqual(
      toModelPrompt('', structuredClone(other), 'scripted:auto'),
    );
  });
});
