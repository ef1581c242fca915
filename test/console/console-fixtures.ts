import { expect } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import type { StartOptions } from '../../src/server/start-baton.ts';

export const APP = 'projects/default/locations/global/apps/default';

/**
 * One scripted program for every console agent: a refund (a server tool that needs approval),
 * a stock check (a client function with a response schema); then it reports what came back.
 */
export const deskProgram = {
  rules: [
    { when: { user: 'refund' }, call: { tool: 'issue_refund', arguments: { order_id: 'A-100', amount: 25 } } },
    { when: { user: 'stock' }, call: { tool: 'check_stock', arguments: { sku: 'SKU-7' } } },
    { when: { user: 'boxes' }, call: { tool: 'count_boxes', arguments: { dock: 'D2' } } },
    { when: { user: 'visit' }, call: { tool: 'log_visit', arguments: { customer: 'Ada' } } },
    { when: { tool_error: true }, say: 'Could not finish: {{result}}' },
    { when: { tool_result: true }, say: 'All done: {{result}}' },
    { say: 'How can I help?' },
  ],
};

/** What check_stock answers with: every kind of input the generated form has. */
export const stockResponseSchema = {
  type: 'object',
  properties: {
    in_stock: { type: 'boolean', description: 'Whether the item can ship today' },
    quantity: { type: 'integer' },
    warehouse: { type: 'string', enum: ['north', 'south'] },
    note: { type: 'string' },
    location: { type: 'object', properties: { aisle: { type: 'string' }, shelf: { type: 'integer' } } },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['quantity', 'warehouse'],
};

/**
 * A Baton with: `refunds` (CES agent; `issue_refund` is a jsFunction with requireApproval),
 * `stock-desk` (Threads agent; client tools `check_stock` with a response schema and `log_visit` without), `dock` (CES
 * agent; clientFunction `count_boxes` with a CES `response` schema), and the demo `refund-desk`
 * (client tool `request_approval`).
 */
export async function startConsoleBaton(options: StartOptions = {}): Promise<TestBaton> {
  const baton = await startTestBaton({ scripted: { desk: deskProgram } }, options);
  await expectOk(
    baton.request('POST', `/v1/${APP}/tools?toolId=issue-refund`, {
      requireApproval: true,
      jsFunction: {
        name: 'issue_refund',
        description: 'Refunds an order.',
        parameters: {
          type: 'OBJECT',
          properties: { order_id: { type: 'STRING' }, amount: { type: 'NUMBER' } },
          required: ['order_id', 'amount'],
        },
        jsCode:
          'function issue_refund(args) { return { refunded: true, order_id: args.order_id, amount: args.amount }; }',
      },
    }),
  );
  await expectOk(
    baton.request('POST', `/v1/${APP}/agents?agentId=refunds`, {
      displayName: 'Refunds',
      instruction: 'Issue refunds.',
      modelSettings: { model: 'scripted:desk' },
      tools: [`${APP}/tools/issue-refund`],
    }),
  );
  await expectOk(
    baton.request('POST', `/v1/${APP}/tools?toolId=count-boxes`, {
      clientFunction: {
        name: 'count_boxes',
        description: 'Boxes on a loading dock, counted by a person.',
        parameters: { type: 'OBJECT', properties: { dock: { type: 'STRING' } }, required: ['dock'] },
        response: {
          type: 'OBJECT',
          properties: { boxes: { type: 'INTEGER' }, damaged: { type: 'BOOLEAN' } },
          required: ['boxes'],
        },
      },
    }),
  );
  await expectOk(
    baton.request('POST', `/v1/${APP}/agents?agentId=dock`, {
      displayName: 'Dock',
      instruction: 'Count boxes.',
      modelSettings: { model: 'scripted:desk' },
      tools: [`${APP}/tools/count-boxes`],
    }),
  );
  await expectOk(
    baton.request('POST', '/v1/agents', {
      name: 'stock-desk',
      model: 'scripted:desk',
      tools: [
        {
          name: 'check_stock',
          description: 'Stock of a product, counted by a person.',
          parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
          response_schema: stockResponseSchema,
        },
        {
          name: 'log_visit',
          description: 'Logs a store visit; answers anything.',
          parameters: { type: 'object', properties: { customer: { type: 'string' } } },
        },
      ],
    }),
  );
  return baton;
}

async function expectOk(pending: ReturnType<TestBaton['request']>): Promise<void> {
  const response = await pending;
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
}

/** Starts a thread with `agent` and sends `text`; returns the thread and the call it paused on. */
export async function pausedTurn(
  baton: TestBaton,
  agent: string,
  text: string,
): Promise<{ thread: string; callId: string }> {
  const thread = (await baton.request('POST', '/v1/threads', { agent })).body.id as string;
  const sent = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: text });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const callId = sent.body.choices[0].message.tool_calls?.[0]?.id as string | undefined;
  expect(callId, JSON.stringify(sent.body)).toBeDefined();
  return { thread, callId: callId as string };
}
