import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../console/src/api-types.ts';
import { buildValue, initialDraft, kindOf, setAt, type Draft } from '../../console/src/schema-model.ts';
import { SseParser } from '../../console/src/sse-parser.ts';

/** The console's pure logic, without a browser: the SSE parser and the generated form's model. */
describe('console SSE parser', () => {
  it('assembles frames split anywhere, skips comments, and keeps the last id', () => {
    const parser = new SseParser();
    const text =
      'retry: 2000\n\nevent: ready\ndata: {"a":1}\n\n: keep-alive\n\nid: 7|call_1\r\nevent: tool_call.created\r\ndata: {"id":\r\ndata: "call_1"}\r\n\r\n';
    const frames = [...text].flatMap((char) => parser.push(char));
    expect(frames).toEqual([
      { event: 'ready', data: '{"a":1}', id: null },
      { event: 'tool_call.created', data: '{"id":\n"call_1"}', id: '7|call_1' },
    ]);
  });
});

describe('console schema form model', () => {
  const schema: JsonSchema = {
    type: 'OBJECT',
    properties: {
      count: { type: 'INTEGER' },
      ok: { type: 'BOOLEAN' },
      size: { type: 'string', enum: ['s', 'm'] },
      where: { type: 'object', properties: { shelf: { type: 'number' } } },
      flags: { type: 'array', items: { type: 'boolean' } },
      blob: { type: 'array', items: { type: 'object' } },
    },
    required: ['count'],
  };

  it("reads Google's upper-case types and picks an input per node", () => {
    expect(kindOf(schema)).toBe('object');
    const properties = schema.properties ?? {};
    expect(Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, kindOf(child)]))).toEqual({
      count: 'integer',
      ok: 'boolean',
      size: 'enum',
      where: 'object',
      flags: 'array',
      blob: 'json',
    });
    expect(kindOf({ type: ['string', 'null'] })).toBe('string');
  });

  it('leaves empty optional fields out, parses numbers and reports every problem', () => {
    let draft: Draft = initialDraft(schema);
    const errors: string[] = [];
    expect(buildValue(schema, draft, [], true, errors)).toEqual({ ok: false });
    expect(errors).toEqual(['count is required.']);

    draft = setAt(draft, ['count'], '2.5');
    draft = setAt(draft, ['blob'], '[{');
    const more: string[] = [];
    buildValue(schema, draft, [], true, more);
    expect(more).toEqual(['count must be a whole number.', expect.stringContaining('blob is not valid JSON')]);

    draft = setAt(draft, ['count'], '3');
    draft = setAt(draft, ['blob'], '[{"x":1}]');
    draft = setAt(draft, ['where', 'shelf'], '1.5');
    draft = setAt(draft, ['flags'], ['true', '', 'false']);
    draft = setAt(draft, ['size'], 'm');
    const none: string[] = [];
    expect(buildValue(schema, draft, [], true, none)).toEqual({
      count: 3,
      ok: false,
      size: 'm',
      where: { shelf: 1.5 },
      flags: [true, false],
      blob: [{ x: 1 }],
    });
    expect(none).toEqual([]);
  });
});
