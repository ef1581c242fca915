import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  answerClientCalls,
  collect,
  itemsOf,
  runOf,
  startDesk,
  type DeskBaton,
  type Item,
} from './server-call-fixtures.ts';

/**
 * Calls Baton executes itself (server tools) on the Responses face: `baton:tool_call` and
 * `baton:tool_result` items, never `function_call`s an OpenAI client would answer, in JSON, in
 * SSE and WebSocket streams and in GET; outputs sent for them are refused clearly; replayed as
 * history they are accepted. Approvals: server-call-approvals.test.ts.
 */

const MIXED_TYPES = ['function_call', 'baton:tool_call', 'function_call', 'baton:tool_result'];

/** One response.create over the WebSocket face: its events up to the terminal one. */
async function overWebSocket(url: string, key: string, message: Item): Promise<Item[]> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const events: Item[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const event = JSON.parse(String(data)) as Item;
      events.push(event);
      if (event.type === 'error' && !('sequence_number' in event)) reject(new Error(JSON.stringify(event)));
      if (['response.completed', 'response.failed', 'response.incomplete'].includes(event.type)) resolve();
    });
    ws.send(JSON.stringify({ type: 'response.create', ...message }));
  });
  ws.close();
  return events;
}

describe('Responses face: server-executed calls', () => {
  let desk: DeskBaton;
  beforeAll(async () => {
    desk = await startDesk();
  });
  afterAll(async () => desk.server.close());

  it('a mixed step: two function_calls for the client, the server call and its result as baton items, in call order; the server tool runs once', async () => {
    const { client, tools } = desk;
    const before = tools.count('lookup_price');
    const first = await client.responses.create({ model: 'desk', input: 'mixed question' });
    expect(first.status).toBe('completed');
    const output = itemsOf(first);
    expect(output.map((item) => item.type)).toEqual(MIXED_TYPES);
    expect(
      output.filter((item) => item.type === 'function_call').map((item) => JSON.parse(item.arguments).city),
    ).toEqual(['SF', 'NYC']);

    const [call, result] = [output[1], output[3]] as [Item, Item];
    expect(call).toEqual({
      type: 'baton:tool_call',
      id: expect.stringMatching(/^btc_/),
      call_id: expect.stringMatching(/^call_/),
      name: 'lookup_price',
      arguments: expect.any(String),
      executor: 'server',
      status: 'completed',
    });
    expect(JSON.parse(call.arguments)).toEqual({ sku: 'A-1' });
    expect(call.id.slice('btc_'.length)).toBe(call.call_id.slice('call_'.length));
    expect(result).toEqual({
      type: 'baton:tool_result',
      id: `btr_${call.id.slice(4)}`,
      call_id: call.call_id,
      output: expect.stringContaining('"ran":"lookup_price"'),
      is_error: false,
      status: 'completed',
    });
    expect(runOf(first)).toMatchObject({
      status: 'requires_action',
      pending_tool_call_ids: output.filter((item) => item.type === 'function_call').map((item) => item.call_id),
      pending_approval_ids: [],
    });
    expect(tools.count('lookup_price')).toBe(before + 1);

    const second = await answerClientCalls(client, first.id, output);
    expect(second.status).toBe('completed');
    expect(second.output_text).toContain('Done');
    expect(itemsOf(second).some((item) => item.type === 'function_call' || item.type === 'baton:tool_call')).toBe(
      false,
    );
    expect(tools.count('lookup_price')).toBe(before + 1);

    // The first response reads the same after its continuation; the result written at resume is
    // part of the second response's input, as a baton:tool_result.
    expect(itemsOf(await client.responses.retrieve(first.id))).toEqual(output);
    const input = await client.responses.inputItems.list(second.id, { order: 'asc' });
    expect((input.data as unknown as Item[]).map((item) => [item.type, item.call_id])).toEqual([
      ['function_call_output', output[0]?.call_id],
      ['baton:tool_result', call.call_id],
      ['function_call_output', output[2]?.call_id],
    ]);
  });

  /** What every stream of a mixed step must show, SSE or WebSocket. */
  function expectMixedStream(events: Item[]): Item {
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const added = events.filter((event) => event.type === 'response.output_item.added');
    const done = events.filter((event) => event.type === 'response.output_item.done');
    expect(done.map((event) => event.item.type)).toEqual(MIXED_TYPES);
    expect(added.map((event) => [event.output_index, event.item.type, event.item.status])).toEqual(
      MIXED_TYPES.map((type, index) => [index, type, 'in_progress']),
    );
    expect(done.map((event) => event.output_index)).toEqual([0, 1, 2, 3]);
    // No argument events for the server call: only the two client calls have them (delta + done each).
    const serverCall = done[1]?.item as Item;
    const argumentEvents = events.filter((event) => String(event.type).startsWith('response.function_call_arguments.'));
    expect(argumentEvents).toHaveLength(4);
    expect(
      argumentEvents.some(
        (event) => event.item_id === serverCall.id || event.call_id === serverCall.call_id || event.output_index === 1,
      ),
    ).toBe(false);
    const last = events[events.length - 1] as Item;
    expect(last.type).toBe('response.completed');
    expect(itemsOf(last.response)).toEqual(done.map((event) => event.item));
    return last.response;
  }

  it('streams the same items over SSE: baton items get output_item.added/.done, and no function_call_arguments event names the server call', async () => {
    const { client, tools } = desk;
    const before = tools.count('lookup_price');
    const response = expectMixedStream(
      await collect(await client.responses.create({ model: 'desk', input: 'mixed again', stream: true })),
    );
    expect(itemsOf(await client.responses.retrieve(response.id))).toEqual(itemsOf(response));

    const second = await answerClientCalls(client, response.id, itemsOf(response));
    expect(second.output_text).toContain('Done');
    expect(tools.count('lookup_price')).toBe(before + 1);
  });

  it('streams the same items over WebSocket', async () => {
    const response = expectMixedStream(
      await overWebSocket(desk.server.url, desk.server.key, { model: 'desk', input: 'mixed, by socket' }),
    );
    expect(itemsOf(await desk.client.responses.retrieve(response.id))).toEqual(itemsOf(response));
  });

  it('a server-only step goes on at once: call and result, then the answer, with no pending calls', async () => {
    const response = await desk.client.responses.create({ model: 'desk', input: 'price please' });
    expect(itemsOf(response).map((item) => item.type)).toEqual(['baton:tool_call', 'baton:tool_result', 'message']);
    expect(response.output_text).toContain('B-2');
    expect(runOf(response)).toMatchObject({ status: 'completed', pending_tool_call_ids: [], pending_approval_ids: [] });
    const streamed = await collect(
      await desk.client.responses.create({ model: 'desk', input: 'price please', stream: true }),
    );
    expect(
      streamed.filter((event) => event.type === 'response.output_item.done').map((event) => event.item.type),
    ).toEqual(['baton:tool_call', 'baton:tool_result', 'message']);
    expect(streamed.some((event) => String(event.type).startsWith('response.function_call_arguments.'))).toBe(false);
  });

  it('refuses a function_call_output for a server call: 400 naming the input item, saying Baton executed it', async () => {
    const { client, server } = desk;
    const first = await client.responses.create({ model: 'desk', input: 'mixed, once more' });
    const output = itemsOf(first);
    const serverCall = output[1] as Item;
    const input = [
      ...output
        .filter((item) => item.type === 'function_call')
        .map((item) => ({ type: 'function_call_output' as const, call_id: item.call_id, output: 'weather' })),
      { type: 'function_call_output' as const, call_id: serverCall.call_id, output: 'my own price' },
    ];
    const refused = await client.responses.create({ model: 'desk', previous_response_id: first.id, input }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({
      status: 400,
      code: 'server_executed_call',
      param: 'input[2]',
      type: 'invalid_request_error',
    });
    expect((refused as Error).message).toMatch(/input\[2\].*lookup_price.*Baton executes itself.*needs no output/);

    // Nothing was consumed: the right outputs still continue the response.
    const second = await answerClientCalls(client, first.id, output);
    expect(second.output_text).toContain('Done');

    // The same for a server call of a finished response.
    const finished = await client.responses.create({ model: 'desk', input: 'price please' });
    const ran = itemsOf(finished)[0] as Item;
    const late = await server.request('POST', '/v1/responses', {
      previous_response_id: finished.id,
      input: [{ type: 'function_call_output', call_id: ran.call_id, output: '12 EUR' }],
    });
    expect(late.status).toBe(400);
    expect(late.body.error).toMatchObject({
      code: 'server_executed_call',
      param: 'input[0]',
      type: 'invalid_request_error',
    });
  });

  it('accepts baton items replayed as history (stateless, without previous_response_id)', async () => {
    const first = await desk.client.responses.create({ model: 'desk', input: 'price please' });
    expect(itemsOf(first).map((item) => item.type)).toEqual(['baton:tool_call', 'baton:tool_result', 'message']);
    const replayed = await desk.server.request('POST', '/v1/responses', {
      model: 'desk',
      input: [{ role: 'user', content: 'price please' }, ...itemsOf(first), { role: 'user', content: 'thanks' }],
    });
    expect(replayed.status).toBe(200);
    expect(replayed.body.status).toBe('completed');
    // Replayed calls are history the client brought, not calls Baton ran here.
    const history = await desk.server.request('GET', `/v1/responses/${replayed.body.id}/input_items?order=asc`);
    expect(history.body.data.map((item: Item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'message',
      'message',
    ]);
  });
});
