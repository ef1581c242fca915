import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

const getWeather = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** `item_reference` inputs name stored items by their Responses ids, within the caller's app. */
describe('Responses API: item_reference', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton();
  });
  afterAll(async () => server.close());

  it('replays a stored user message and function call by reference, without previous_response_id', async () => {
    const first = await server.request('POST', '/v1/responses', {
      model: 'scripted:auto',
      input: 'What is the weather in Paris?',
      tools: [getWeather],
    });
    const call = first.body.output.find((item: { type: string }) => item.type === 'function_call');
    const inputItems = await server.request('GET', `/v1/responses/${first.body.id}/input_items`);
    const userMessageId = inputItems.body.data[0].id as string;
    expect(userMessageId).toMatch(/^msg_/);

    const replay = await server.request('POST', '/v1/responses', {
      model: 'scripted:auto',
      tools: [getWeather],
      input: [
        { type: 'item_reference', id: userMessageId },
        { id: call.id },
        { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":18}' },
      ],
    });
    expect(replay.status).toBe(200);
    expect(replay.body.status).toBe('completed');
    const replayed = await server.request('GET', `/v1/responses/${replay.body.id}/input_items?order=asc`);
    expect(replayed.body.data.map((item: { type: string }) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
    ]);
    expect(replayed.body.data[1]).toMatchObject({
      call_id: call.call_id,
      name: 'get_weather',
      arguments: call.arguments,
    });
  });

  it('refuses an unknown reference and a reference to another app, naming the input item', async () => {
    const unknown = await server.request('POST', '/v1/responses', {
      model: 'scripted:auto',
      input: [{ type: 'item_reference', id: 'msg_nope' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      code: 'item_not_found',
      param: 'input[0]',
      type: 'invalid_request_error',
    });

    const mine = await server.request('POST', '/v1/responses', { model: 'scripted:auto', input: 'hello' });
    const messageId = (await server.request('GET', `/v1/responses/${mine.body.id}/input_items`)).body.data[0]
      .id as string;
    const app = await server.request('POST', '/v1/apps', { name: 'other-app' });
    const foreign = await server.request(
      'POST',
      '/v1/responses',
      { model: 'scripted:auto', input: [{ type: 'item_reference', id: messageId }] },
      { authorization: `Bearer ${app.body.api_key.key}` },
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('item_not_found');
  });
});
