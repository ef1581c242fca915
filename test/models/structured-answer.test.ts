import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { autoProgram } from '../../src/models/scripted/auto-program.ts';
import { ScriptedLanguageModel } from '../../src/models/scripted/scripted-model.ts';
import { parseScriptedProgram } from '../../src/models/scripted/scripted-program.ts';

/**
 * The scripted model under a JSON response format (`responseFormat`, Responses `text.format`):
 * its text answer is JSON valid against the schema, with values from tool results, the decided
 * answer and the user's message where they fit, and typed placeholders elsewhere.
 */

// ajv-formats ships CJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = addFormats(new Ajv({ strict: false }));

function options(prompt: LanguageModelV3Prompt, schema?: Record<string, unknown>): LanguageModelV3CallOptions {
  return { prompt, responseFormat: { type: 'json', ...(schema ? { schema: schema as never, name: 'answer' } : {}) } };
}

const ask = (text: string): LanguageModelV3Prompt => [{ role: 'user', content: [{ type: 'text', text }] }];

async function answer(model: ScriptedLanguageModel, call: LanguageModelV3CallOptions): Promise<unknown> {
  const result = await model.doGenerate(call);
  const text = result.content.find((part) => part.type === 'text');
  return JSON.parse(text?.type === 'text' ? text.text : 'undefined') as unknown;
}

/** Strict-mode schemas as OpenAI's structured outputs (and zodTextFormat) write them. */
const SCHEMAS: Record<string, Record<string, unknown>> = {
  flat: {
    type: 'object',
    properties: { city: { type: 'string' }, temperature: { type: 'number' }, raining: { type: 'boolean' } },
    required: ['city', 'temperature', 'raining'],
    additionalProperties: false,
  },
  nested: {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^ORD-[0-9]+$' },
      lines: {
        type: 'array',
        minItems: 2,
        items: {
          type: 'object',
          properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1, maximum: 99 } },
          required: ['sku', 'quantity'],
          additionalProperties: false,
        },
      },
      priority: { type: 'string', enum: ['low', 'high'] },
      note: { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }] },
      created: { type: 'string', format: 'date-time' },
    },
    required: ['id', 'lines', 'priority', 'note', 'created'],
    additionalProperties: false,
  },
  references: {
    type: 'object',
    $defs: {
      money: { type: 'object', properties: { amount: { type: 'number', exclusiveMinimum: 0 } }, required: ['amount'] },
    },
    properties: { total: { $ref: '#/$defs/money' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['total', 'tags'],
    additionalProperties: false,
  },
};

describe('scripted model: JSON answers under a response format', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`answers JSON valid against the ${name} schema`, async () => {
      const model = new ScriptedLanguageModel('auto', autoProgram);
      const value = await answer(model, options(ask('Order ORD-123 please, 3 of them, high priority.'), schema));
      const valid = ajv.validate(schema, value);
      expect(valid, JSON.stringify(ajv.errors)).toBe(true);
    });
  }

  it('takes values from the tool results it summarises, by field name and type', async () => {
    const model = new ScriptedLanguageModel('auto', autoProgram);
    const prompt: LanguageModelV3Prompt = [
      ...ask('Weather in Paris?'),
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'get_weather',
            output: { type: 'text', value: '{"temperature": 18.5, "Raining": false, "humidity": "high"}' },
          },
        ],
      },
    ];
    // `Raining` names `raining`; `city` is not in the result, so the user's message gives it.
    expect(await answer(model, options(prompt, SCHEMAS['flat']))).toEqual({
      city: 'Paris',
      temperature: 18.5,
      raining: false,
    });
  });

  it('a rule program’s JSON answer gives its fields; its text answer under json_object is wrapped', async () => {
    const program = parseScriptedProgram({ rules: [{ say: '{"city": "Porto", "temperature": 21}' }] }, 'json');
    const model = new ScriptedLanguageModel('json', program);
    expect(await answer(model, options(ask('hi'), SCHEMAS['flat']))).toEqual({
      city: 'Porto',
      temperature: 21,
      raining: false,
    });
    expect(await answer(model, options(ask('hi')))).toEqual({ city: 'Porto', temperature: 21 });
    const plain = new ScriptedLanguageModel('plain', parseScriptedProgram({ rules: [{ say: 'Hello.' }] }, 'plain'));
    expect(await answer(plain, options(ask('hi')))).toEqual({ answer: 'Hello.' });
  });

  it('a non-object root schema gets a value of its type; a text format leaves the answer alone', async () => {
    const model = new ScriptedLanguageModel('auto', autoProgram);
    const list = { type: 'array', items: { type: 'integer' } };
    expect(ajv.validate(list, await answer(model, options(ask('Count to 3.'), list)))).toBe(true);
    expect(typeof (await answer(model, options(ask('Say hi.'), { type: 'string' })))).toBe('string');
    const text = await model.doGenerate({ prompt: ask('Say hi.'), responseFormat: { type: 'text' } });
    expect(text.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('You said') });
  });

  it('streams the same JSON it generates', async () => {
    const model = new ScriptedLanguageModel('auto', autoProgram);
    const { stream } = await model.doStream(options(ask('Weather in Paris?'), SCHEMAS['flat']));
    let text = '';
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'text-delta') text += value.delta;
    }
    expect(ajv.validate(SCHEMAS['flat'] as object, JSON.parse(text))).toBe(true);
  });
});
