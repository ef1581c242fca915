import { describe, expect, it } from 'vitest';
import { toModelPrompt } from '../../src/engine/model-prompt.ts';
import {
  clientFunctionDefinition,
  parseDurationSeconds,
  toJsonSchema,
} from '../../src/resources/tools/client-function-definition.ts';
import type { ItemPayload } from '../../src/domain/records.ts';
import type { WindowItem } from '../../src/domain/queries.ts';

let seq = 0;
const item = (groupId: string, payload: ItemPayload): WindowItem => ({ seq: ++seq, groupId, payload });

describe('late results of asynchronous calls in the prompt', () => {
  it('sends a second output of an already answered call as a user message, never as a second tool result', () => {
    const prompt = toModelPrompt('', [
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
    ]);
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    const late = prompt.at(-1);
    expect(late?.role === 'user' && late.content[0]?.type === 'text' && late.content[0].text).toBe(
      'Result of the asynchronous tool call notify_crm (c1): {"ticket":"T-1"}',
    );
  });
});

describe('app Tool resources as agent tools', () => {
  it('reads a clientFunction with a CES Schema, timeout and execution type', () => {
    const definition = clientFunctionDefinition({
      clientFunction: {
        name: 'get_store',
        description: 'd',
        parameters: {
          type: 'OBJECT',
          properties: { zip: { type: 'STRING', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING' } } },
          required: ['zip'],
        },
      },
      timeout: '45s',
      executionType: 'ASYNCHRONOUS',
    });
    expect(definition).toEqual({
      name: 'get_store',
      description: 'd',
      parameters: {
        type: 'object',
        properties: { zip: { type: ['string', 'null'] }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['zip'],
      },
      timeoutSeconds: 45,
      asynchronous: true,
    });
    expect(clientFunctionDefinition({ jsFunction: { name: 'x', jsCode: '' } })).toBeUndefined();
  });

  it('converts refs and leaves JSON Schema as it is', () => {
    expect(toJsonSchema({ ref: '#/defs/a', defs: { a: { type: 'INTEGER' } } })).toEqual({
      $ref: '#/$defs/a',
      $defs: { a: { type: 'integer' } },
    });
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    expect(toJsonSchema(plain)).toEqual(plain);
    expect(parseDurationSeconds('1.5s')).toBe(1.5);
    expect(parseDurationSeconds('10m')).toBeUndefined();
  });
});
