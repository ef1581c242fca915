import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { APP, created } from './ces-test-client.ts';

/** What CES writes is what runs: an agent made over the management API calls its client function. */
describe('an agent created over CES, used from the Responses API', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('calls the clientFunction tool it refers to (CES Schema converted), as a function_call item', async () => {
    await created(baton, `/v1/${APP}/tools?toolId=order-status`, {
      clientFunction: {
        name: 'get_order_status',
        description: 'Get the delivery status of an order by its order number.',
        parameters: {
          type: 'OBJECT',
          properties: { order_number: { type: 'STRING', description: 'The order number' } },
          required: ['order_number'],
        },
      },
    });
    await created(baton, `/v1/${APP}/tools?toolId=unused`, {
      clientFunction: { name: 'cancel_subscription', description: 'Cancel a subscription.' },
    });
    await created(baton, `/v1/${APP}/agents?agentId=orders`, {
      displayName: 'Orders',
      instruction: 'Help with orders.',
      modelSettings: { model: 'scripted:auto' },
      tools: [`${APP}/tools/order-status`],
    });

    const response = await baton.request('POST', '/v1/responses', {
      model: 'orders',
      input: 'What is the delivery status of order 4711?',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const calls = response.body.output.filter((item: any) => item.type === 'function_call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: 'function_call', name: 'get_order_status', call_id: expect.any(String) });
    expect(JSON.parse(calls[0].arguments)).toEqual({ order_number: expect.stringContaining('4711') });

    // Once the tool is removed from the agent (force delete), the next turn no longer offers it.
    expect((await baton.request('DELETE', `/v1/${APP}/tools/order-status?force=true`)).status).toBe(200);
    const after = await baton.request('POST', '/v1/responses', {
      model: 'orders',
      input: 'What is the delivery status of order 4711?',
    });
    expect(after.status).toBe(200);
    expect(after.body.output.filter((item: any) => item.type === 'function_call')).toEqual([]);
  });
});
