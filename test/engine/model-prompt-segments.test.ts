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
function conversation(seed: number, turns: number): WindowItem[] {
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
        const provider = next() < 0.7 ? { model, metadata: {}, callId: `p_${Math.floor(next() * 6)}` } : undefined;
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
        const output = [{ type: 'text' as const, text: `result ${callId}` }];
        if (next() < 0.1) {
          // Its only result comes in a later turn.
          lateResults.push({
            type: 'function_call_output',
            callId,
            name: 'lookup',
            output,
            isError: false,
            synthetic: false,
          });
          continue;
        }
        add(`r${turn}_${step}`, {
          type: 'function_call_output',
          callId,
          name: 'lookup',
          output,
          isError: next() < 0.2,
          synthetic: false,
        });
        if (next() < 0.15)
          lateResults.push({
            type: 'function_call_output',
            callId,
            name: 'lookup',
            output,
            isError: false,
            synthetic: false,
          });
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
