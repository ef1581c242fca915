import { defineTool, type FromSchema, type ToolContext } from '@baton/client';
import { describe, expect, expectTypeOf, it } from 'vitest';

/** `FromSchema` is checked by tsc (npm run typecheck covers test/); the runtime part only runs the handlers. */
describe('FromSchema and defineTool', () => {
  it('maps primitive types, enums, consts, nulls and type lists', () => {
    expectTypeOf<FromSchema<{ type: 'string' }>>().toEqualTypeOf<string>();
    expectTypeOf<FromSchema<{ type: 'integer' }>>().toEqualTypeOf<number>();
    expectTypeOf<FromSchema<{ type: 'number' }>>().toEqualTypeOf<number>();
    expectTypeOf<FromSchema<{ type: 'boolean' }>>().toEqualTypeOf<boolean>();
    expectTypeOf<FromSchema<{ type: 'null' }>>().toEqualTypeOf<null>();
    expectTypeOf<FromSchema<{ readonly type: readonly ['string', 'null'] }>>().toEqualTypeOf<string | null>();
    expectTypeOf<FromSchema<{ readonly enum: readonly ['refund', 'discount'] }>>().toEqualTypeOf<
      'refund' | 'discount'
    >();
    expectTypeOf<FromSchema<{ type: 'string'; readonly enum: readonly ['a', 'b'] }>>().toEqualTypeOf<'a' | 'b'>();
    expectTypeOf<FromSchema<{ const: 42 }>>().toEqualTypeOf<42>();
    expectTypeOf<FromSchema<{ readonly anyOf: readonly [{ type: 'string' }, { type: 'number' }] }>>().toEqualTypeOf<
      string | number
    >();
    expectTypeOf<FromSchema<{ readonly oneOf: readonly [{ const: 'x' }, { type: 'null' }] }>>().toEqualTypeOf<
      'x' | null
    >();
    expectTypeOf<FromSchema<{ description: 'anything' }>>().toEqualTypeOf<unknown>();
    // CES writes type names in capitals.
    expectTypeOf<FromSchema<{ type: 'STRING' }>>().toEqualTypeOf<string>();
  });

  it('maps objects: required keys, optional keys, nesting, arrays, tuples, additionalProperties', () => {
    // Only its type is used: what FromSchema derives from a literal schema.
    const _schema = {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['refund', 'cancellation'] },
        amount: { type: 'number' },
        note: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string' } },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
        customer: {
          type: 'object',
          properties: { id: { type: 'string' }, vip: { type: 'boolean' } },
          required: ['id'],
          additionalProperties: false,
        },
      },
      required: ['action', 'amount'],
      additionalProperties: false,
    } as const;
    expectTypeOf<FromSchema<typeof _schema>>().toEqualTypeOf<{
      action: 'refund' | 'cancellation';
      amount: number;
      note?: string | null;
      tags?: string[];
      pair?: [string, number];
      customer?: { id: string; vip?: boolean };
    }>();
    expectTypeOf<FromSchema<{ type: 'object' }>>().toEqualTypeOf<{ [key: string]: unknown }>();
    expectTypeOf<FromSchema<{ type: 'object'; additionalProperties: { type: 'number' } }>>().toEqualTypeOf<{
      [key: string]: number;
    }>();
    expectTypeOf<FromSchema<{ type: 'array' }>>().toEqualTypeOf<unknown[]>();
  });

  it('types a defineTool handler from its schema without `as const`', async () => {
    const tool = defineTool({
      name: 'process_refund',
      description: 'Processes a refund.',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string' },
          reason: { type: 'string', enum: ['damaged', 'other'] },
          amount: { type: 'number' },
        },
        required: ['order_id', 'reason'],
      },
      timeoutMs: 5_000,
      handler: async (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ order_id: string; reason: 'damaged' | 'other'; amount?: number }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return { refunded: input.amount ?? 0, order: input.order_id };
      },
    });
    expect(tool.name).toBe('process_refund');
    expect(tool.timeoutMs).toBe(5_000);
    const context = {
      callId: 'call_1',
      toolName: 'process_refund',
      threadId: 'thread_1',
      face: 'threads',
      signal: new AbortController().signal,
    } as const;
    expect(await tool.handler({ order_id: 'ORD-1', reason: 'other', amount: 5 }, context)).toEqual({
      refunded: 5,
      order: 'ORD-1',
    });
    // @ts-expect-error reason must be one of the enum values
    void tool.handler({ order_id: 'ORD-1', reason: 'bored' }, context);
  });
});
