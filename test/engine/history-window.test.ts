import { describe, expect, it } from 'vitest';
import { trimToUserBoundary } from '../../src/engine/history-window.ts';
import { toModelPrompt } from '../../src/engine/model-prompt.ts';
import type { ItemPayload } from '../../src/domain/records.ts';
import type { WindowItem } from '../../src/domain/queries.ts';

let seq = 0;
const item = (groupId: string, payload: ItemPayload): WindowItem => ({ seq: ++seq, groupId, payload });
const user = (text: string) => item(`u${seq}`, { type: 'message', role: 'user', content: [{ type: 'text', text }] });
const call = (group: string, callId: string) =>
  item(group, { type: 'function_call', callId, name: 'lookup', arguments: '{"id":1}', executor: 'client' });
const output = (group: string, callId: string, isError = false) =>
  item(group, {
    type: 'function_call_output',
    callId,
    name: 'lookup',
    output: [{ type: 'text', text: `result ${callId}` }],
    isError,
    synthetic: false,
  });

describe('the history window sent to the model', () => {
  it('starts a cut window at a user message, so no result arrives without its call', () => {
    const items = [
      output('r0', 'c0'),
      item('a1', { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'done' }] }),
      user('next'),
      call('a2', 'c2'),
      output('r2', 'c2'),
    ];
    expect(trimToUserBoundary(items, false).map((entry) => entry.payload.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
    ]);
    expect(trimToUserBoundary(items, false)[0]?.payload).toMatchObject({ role: 'user' });
    expect(trimToUserBoundary(items, true)).toHaveLength(5);
    // A window inside one long turn: outputs whose call fell out are dropped.
    expect(
      trimToUserBoundary([output('r', 'x'), call('a', 'y'), output('r2', 'y')], false).map(
        (entry) => entry.payload.type,
      ),
    ).toEqual(['function_call', 'function_call_output']);
  });

  it('groups an assistant step into one message and parallel results into one tool message', () => {
    const prompt = toModelPrompt(
      'Be brief.',
      [user('hi'), call('a1', 'c1'), call('a1', 'c2'), output('r1', 'c1'), output('r1', 'c2', true)],
      'scripted:auto',
    );
    expect(prompt.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(prompt[2]?.content).toHaveLength(2);
    const tool = prompt[3];
    expect(
      tool?.role === 'tool' &&
        tool.content.map((part) => (part.type === 'tool-result' ? [part.toolCallId, part.output.type] : [])),
    ).toEqual([
      ['c1', 'text'],
      ['c2', 'error-text'],
    ]);
  });

  it('converts each stored item once, and again only for another model or another provider call id', () => {
    const signed = item('a1', {
      type: 'function_call',
      callId: 'c1',
      name: 'lookup',
      arguments: '{"id":1}',
      executor: 'client',
      provider: { model: 'openai:gpt-5', metadata: { openai: { itemId: 'fc_1' } }, callId: 'call_p1' },
    });
    const items = [user('hi'), signed, output('r1', 'c1')];
    const partsOf = (model: string) =>
      toModelPrompt('', items, model).flatMap((message): readonly object[] =>
        message.role === 'system' ? [] : message.content,
      );
    const first = partsOf('openai:gpt-5');
    const again = partsOf('openai:gpt-5');
    // The same part objects: nothing was converted again.
    expect(again.every((part, index) => part === first[index])).toBe(true);
    expect(first[1]).toMatchObject({ toolCallId: 'call_p1', providerOptions: { openai: { itemId: 'fc_1' } } });
    // Another model gets Baton's call id and none of the first model's provider state.
    const other = partsOf('anthropic:claude');
    expect(other[1]).toEqual({ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { id: 1 } });
    expect(other[2]).toMatchObject({ type: 'tool-result', toolCallId: 'c1' });
    // Back on the first model, its parts are made as they were.
    expect(partsOf('openai:gpt-5')).toEqual(first);
    // A second call with the same provider id makes that id ambiguous: Baton's ids go instead.
    const repeated = item('a2', {
      type: 'function_call',
      callId: 'c2',
      name: 'lookup',
      arguments: '{}',
      executor: 'client',
      provider: { model: 'openai:gpt-5', metadata: {}, callId: 'call_p1' },
    });
    const parts = toModelPrompt('', [...items, repeated], 'openai:gpt-5').flatMap((message): readonly object[] =>
      message.role === 'system' ? [] : message.content,
    );
    expect(parts[1]).toMatchObject({ type: 'tool-call', toolCallId: 'c1' });
    expect(parts[2]).toMatchObject({ type: 'tool-result', toolCallId: 'c1' });
  });
});
