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
});
