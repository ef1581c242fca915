import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created } from './ces-test-client.ts';

/**
 * A CES client function may ask that its results be checked against its declared `response`
 * (Baton's `enforceResponseSchema`): a result that does not fit is refused wherever it arrives,
 * naming the field, and the call stays pending.
 */
describe('a client function that enforces its response schema', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('refuses enforceResponseSchema without a response schema, naming the field', async () => {
    const refused = await baton.request('POST', `/v1/${APP}/tools?toolId=no-response`, {
      clientFunction: { name: 'lookup', enforceResponseSchema: true },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.status).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(refused.body)).toContain('clientFunction.enforceResponseSchema');
  });

  it('refuses a result that does not fit, over the Responses API, and takes one that does', async () => {
    await created(baton, `/v1/${APP}/tools?toolId=order-status`, {
      clientFunction: {
        name: 'get_order_status',
        description: 'Get the delivery status of an order by its order number.',
        parameters: {
          type: 'OBJECT',
          properties: { order_number: { type: 'STRING' } },
          required: ['order_number'],
        },
        response: {
          type: 'OBJECT',
          properties: { status: { type: 'STRING', enum: ['shipped', 'pending'] } },
          required: ['status'],
        },
        enforceResponseSchema: true,
      },
    });
    await created(baton, `/v1/${APP}/agents?agentId=orders`, {
      displayName: 'Orders',
      instruction: 'Help with orders.',
      modelSettings: { model: 'scripted:auto' },
      tools: [`${APP}/tools/order-status`],
    });
    const paused = await baton.request('POST', '/v1/responses', {
      model: 'orders',
      input: 'What is the delivery status of order 4711?',
    });
    const call = paused.body.output.find((item: { type: string }) => item.type === 'function_call');
    expect(call?.name).toBe('get_order_status');
    const answer = (output: string) =>
      baton.request('POST', '/v1/responses', {
        model: 'orders',
        previous_response_id: paused.body.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output }],
      });

    const refused = await answer(JSON.stringify({ status: 'lost' }));
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_tool_result');
    expect(refused.body.error.message).toContain("'status' must be equal to one of the allowed values");
    expect((await baton.request('GET', `/v1/tool-calls/${call.call_id}`)).body.state).toBe('pending');

    const taken = await answer(JSON.stringify({ status: 'shipped' }));
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect((await baton.request('GET', `/v1/tool-calls/${call.call_id}`)).body.state).toBe('completed');
  });
});
