import { describe, expect, it } from 'vitest';
import { toModelPrompt } from '../../src/engine/model-prompt.ts';
import type { ItemPayload } from '../../src/domain/records.ts';
import type { WindowItem } from '../../src/domain/queries.ts';

let seq = 0;
const item = (groupId: string, payload: ItemPayload): WindowItem => ({ seq: ++seq, groupId, payload });

describe('late results of asynchronous calls in the prompt', () => {
  it('sends a second output of an already answered call as a user message, never as a second tool result', () => {
    const prompt = toModelPrompt(
      '',
      [
        item('u1', { type: 'message', role: 'user', content: [{ type: 'text', text: 'notify' }] }),
        item('a1', { type: 'function_call', callId: 'c1', name: 'notify_crm', arguments: '{}', executor: 'client' }),
        item('p1', {
          type: 'function_call_output',
          callId: 'c1',
          name: 'notify_crm',
          output: [{ type: 'text', text: 'runs asynchronously' }],
          isError: false,
          synthetic: true,
        }),
        item('a2', { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'asked' }] }),
        item('r1', {
          type: 'function_call_output',
          callId: 'c1',
          name: 'notify_crm',
          output: [{ type: 'text', text: '{"ticket":"T-1"}' }],
          isError: false,
          synthetic: false,
        }),
      ],
      'scripted:auto',
    );
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    const late = prompt.at(-1);
    expect(late?.role === 'user' && late.content[0]?.type === 'text' && late.content[0].text).toBe(
      'Result of the asynchronous tool call notify_crm (c1): {"ticket":"T-1"}',
    );
  });
});
