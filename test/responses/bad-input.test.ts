import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  badInputHarness,
  BODY_LIMIT,
  expectError,
  getWeather,
  output,
  REFUND_REQUEST,
} from '../helpers/responses-bad-input-harness.ts';
import type { TestBaton } from '../helpers/test-baton.ts';

/**
 * Responses API: every bad request gets a precise OpenAI-format error (`{error:{message,type,param,code}}`)
 * with the right HTTP status, and leaves what is stored exactly as it was: the responses involved,
 * their conversation's messages and ledger entries, and the row count of every table.
 */
describe('Responses API: bad input', () => {
  const harness = badInputHarness();
  const { post, snapshot, globalSnapshot, pausedResponse, ledgerState } = harness;
  let server: TestBaton;

  beforeAll(async () => {
    server = await harness.start();
  });
  afterAll(async () => harness.close());

  it('function_call_output for an unknown call_id: 400 "No tool call found…", param input[0].call_id', async () => {
    const paused = await pausedResponse();
    const before = await snapshot([paused.id], paused.conversationId);
    const response = await post({ previous_response_id: paused.id, input: [output('call_made_up')] });
    expectError(response, 400, {
      code: 'tool_output_without_call',
      param: 'input[0].call_id',
      message: 'No tool call found for function call output with call_id call_made_up.',
    });
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
    expect(await ledgerState(paused.calls[0]!)).toBe('pending');
  });

  it('function_call_output for an unknown call_id without previous_response_id: 400, and no conversation is created', async () => {
    const before = await globalSnapshot();
    const response = await post({
      model: 'scripted:auto',
      input: [{ role: 'user', content: 'hi' }, output('call_nowhere')],
    });
    expectError(response, 400, {
      code: 'tool_output_without_call',
      param: 'input[1]',
      message: 'No tool call found for function call output with call_id call_nowhere.',
    });
    expect(await globalSnapshot()).toEqual(before);
  });

  it('continuing while a call is left without output: 400 "No tool output found for function call X."', async () => {
    const paused = await pausedResponse();
    const before = await snapshot([paused.id], paused.conversationId);
    const response = await post({ previous_response_id: paused.id, input: 'never mind, just tell me a joke' });
    expectError(response, 400, {
      code: 'tool_call_without_output',
      param: 'input',
      message: `No tool output found for function call ${paused.calls[0]}.`,
    });
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
  });

  it('answering only one of two parallel calls: 400 naming the call left without output', async () => {
    const paused = await pausedResponse('weather', 'weather in SF and NYC');
    expect(paused.calls).toHaveLength(2);
    const [first, second] = paused.calls as [string, string];
    const before = await snapshot([paused.id], paused.conversationId);
    const response = await post({ previous_response_id: paused.id, input: [output(first, '{"temperature":18}')] });
    expectError(response, 400, {
      code: 'tool_call_without_output',
      param: 'input',
      message: `No tool output found for function call ${second}.`,
    });
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
    expect(await ledgerState(first)).toBe('pending');
    expect(await ledgerState(second)).toBe('pending');
  });

  it('unknown previous_response_id: 400 previous_response_not_found, param previous_response_id, nothing created', async () => {
    const before = await globalSnapshot();
    const response = await post({ model: 'scripted:auto', previous_response_id: 'resp_does_not_exist', input: 'hi' });
    expectError(response, 400, {
      code: 'previous_response_not_found',
      param: 'previous_response_id',
      message: "Previous response with id 'resp_does_not_exist' not found.",
    });
    const withoutModel = await post({ previous_response_id: 'resp_does_not_exist', input: [output('call_x')] });
    expectError(withoutModel, 400, { code: 'previous_response_not_found', param: 'previous_response_id' });
    expect(await globalSnapshot()).toEqual(before);
  });

  it(
    "continuing from a response that is not the conversation's latest while its calls are pending: " +
      '409 previous_response_not_latest naming the latest',
    async () => {
      const first = await post({ model: 'refund-desk', input: 'Hello, a question first.', tool_choice: 'none' });
      expect(first.status).toBe(200);
      expect(first.body.baton_run.status).toBe('completed');
      const latest = await post({ previous_response_id: first.body.id, input: REFUND_REQUEST });
      expect(latest.body.baton_run.status).toBe('requires_action');
      const conversationId = first.body.baton_run.conversation_id as string;
      expect(latest.body.baton_run.conversation_id).toBe(conversationId);
      const pendingIds = latest.body.baton_run.pending_tool_call_ids as string[];

      const before = await snapshot([first.body.id, latest.body.id], conversationId);
      const response = await post({ previous_response_id: first.body.id, input: 'Something else instead.' });
      expectError(response, 409, { code: 'previous_response_not_latest', param: 'previous_response_id' });
      expect(response.body.error.message).toContain(latest.body.id);
      expect(response.body.error.latest_response_id).toBe(latest.body.id);
      expect(response.body.error.pending_call_ids).toEqual(pendingIds);
      // Outputs sent to the older response are refused the same way.
      const withOutputs = await post({
        previous_response_id: first.body.id,
        input: pendingIds.map((id) => output(id)),
      });
      expectError(withOutputs, 409, { code: 'previous_response_not_latest', param: 'previous_response_id' });
      expect(await snapshot([first.body.id, latest.body.id], conversationId)).toEqual(before);
    },
  );

  it('the same output twice in one request: 400 duplicate, param input[1].call_id, the call stays pending', async () => {
    const paused = await pausedResponse();
    const callId = paused.calls[0]!;
    const before = await snapshot([paused.id], paused.conversationId);
    const response = await post({
      previous_response_id: paused.id,
      input: [output(callId, '{"approved":true}'), output(callId, '{"approved":false}')],
    });
    expectError(response, 400, { code: 'duplicate_tool_result', param: 'input[1].call_id' });
    expect(response.body.error.message).toContain(callId);
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
    expect(await ledgerState(callId)).toBe('pending');
  });

  it('the same output twice in a stateless replay: 400 duplicate_tool_output, nothing created', async () => {
    const before = await globalSnapshot();
    const response = await post({
      model: 'scripted:auto',
      tools: [getWeather],
      input: [
        { role: 'user', content: 'weather in Paris' },
        { type: 'function_call', call_id: 'call_replayed', name: 'get_weather', arguments: '{"city":"Paris"}' },
        output('call_replayed', '{"temperature":18}'),
        output('call_replayed', '{"temperature":19}'),
      ],
    });
    expectError(response, 400, { code: 'duplicate_tool_output', param: 'input[3]' });
    expect(await globalSnapshot()).toEqual(before);
  });

  it('an output for a call already answered in an earlier request is refused, and the recorded result stays', async () => {
    const paused = await pausedResponse();
    const callId = paused.calls[0]!;
    const answered = await post({
      previous_response_id: paused.id,
      input: [output(callId, '{"approved":true,"approved_by":"manager@company.com"}')],
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('completed');
    const ledgerBefore = (await server.request('GET', `/v1/tool-calls/${callId}`)).body;
    expect(ledgerBefore.state).toBe('completed');
    const before = await snapshot([paused.id, answered.body.id], paused.conversationId);

    // From the latest response: the call is no longer open there.
    const fromLatest = await post({
      previous_response_id: answered.body.id,
      input: [output(callId, '{"approved":false}')],
    });
    expectError(fromLatest, 400, {
      code: 'tool_output_without_call',
      param: 'input[0]',
      message: `No tool call found for function call output with call_id ${callId}.`,
    });
    // From the response that made the call (a retried request): it was answered later in its conversation.
    const fromCaller = await post({ previous_response_id: paused.id, input: [output(callId, '{"approved":false}')] });
    expect(fromCaller.status).toBe(409);
    expectError(fromCaller, 409, { code: 'response_already_continued' });
    expect(fromCaller.body.error.message).toContain(answered.body.id);

    expect(await snapshot([paused.id, answered.body.id], paused.conversationId)).toEqual(before);
    expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body).toEqual(ledgerBefore);
  });

  it('malformed items and bodies: missing call_id, wrong content part type, unknown field, non-JSON, text/plain (415)', async () => {
    const paused = await pausedResponse();
    const before = await snapshot([paused.id], paused.conversationId);

    const missingCallId = await post({
      previous_response_id: paused.id,
      input: [{ type: 'function_call_output', output: 'ok' }],
    });
    expectError(missingCallId, 400, { code: 'invalid_request', param: 'input[0].call_id' });
    const emptyCallId = await post({
      previous_response_id: paused.id,
      input: [{ type: 'function_call_output', call_id: '', output: 'ok' }],
    });
    expectError(emptyCallId, 400, { code: 'invalid_request', param: 'input[0].call_id' });
    const wrongPart = await post({
      previous_response_id: paused.id,
      input: [output(paused.calls[0]!), { role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expectError(wrongPart, 400, { code: 'invalid_request', param: 'input[1].content[0].type' });
    const unknownItemField = await post({
      previous_response_id: paused.id,
      input: [{ ...output(paused.calls[0]!), colour: 'red' }],
    });
    expectError(unknownItemField, 400, { code: 'unknown_parameter', param: 'input[0].colour' });
    expect(unknownItemField.body.error.message).toContain("'colour'");
    const unknownField = await post({
      previous_response_id: paused.id,
      input: [output(paused.calls[0]!)],
      colour: 'red',
    });
    expectError(unknownField, 400, { code: 'unknown_parameter', param: 'colour' });
    expect(unknownField.body.error.message).toContain("'colour'");
    const nonJson = await post(`{"previous_response_id": "${paused.id}", "input": [`, {
      'content-type': 'application/json',
    });
    expectError(nonJson, 400, { code: 'invalid_json', param: null });
    const plainText = await post('hello', { 'content-type': 'text/plain' });
    expectError(plainText, 415, { code: 'unsupported_media_type', param: null });
    const wrongType = await post({ previous_response_id: paused.id, input: 42 });
    expectError(wrongType, 400, { code: 'invalid_request', param: 'input' });

    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
    expect(await ledgerState(paused.calls[0]!)).toBe('pending');
  });

  it(`oversized input: 413 naming the limit (${BODY_LIMIT} bytes)`, async () => {
    const paused = await pausedResponse();
    const before = await snapshot([paused.id], paused.conversationId);
    const huge = await post({
      previous_response_id: paused.id,
      input: [output(paused.calls[0]!, 'x'.repeat(BODY_LIMIT + 1024))],
    });
    expectError(huge, 413, { code: 'body_too_large' });
    expect(huge.body.error.message).toContain(String(BODY_LIMIT));
    const hugeFresh = await post({ model: 'scripted:auto', input: 'y'.repeat(BODY_LIMIT + 1024) });
    expectError(hugeFresh, 413, { code: 'body_too_large' });
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
  });

  it('missing model: 400 missing_model; empty input: 400 empty_input; nothing created', async () => {
    const before = await globalSnapshot();
    const missing = await post({ input: 'hi' });
    expectError(missing, 400, { code: 'missing_model', param: 'model' });
    const empty = await post({ model: 'scripted:auto', input: [] });
    expectError(empty, 400, { code: 'empty_input', param: 'input' });
    const noInput = await post({ model: 'scripted:auto' });
    expectError(noInput, 400, { code: 'empty_input', param: 'input' });
    expect(await globalSnapshot()).toEqual(before);
  });

  it('a model naming nothing: 404 model_not_found, param model, and no agent is created', async () => {
    const before = await globalSnapshot();
    for (const model of ['no-such-agent', 'scripted:no-such-program', 'nosuchprovider:some-model']) {
      const response = await post({ model, input: 'hi' });
      expectError(response, 404, { code: 'model_not_found', param: 'model' });
      expect(response.body.error.message).toContain(model);
    }
    expect(await globalSnapshot()).toEqual(before);
  });

  it('a model that differs from the previous response: 400 model_mismatch, the conversation stays as it was', async () => {
    const paused = await pausedResponse();
    const before = await snapshot([paused.id], paused.conversationId);
    const response = await post({
      model: 'scripted:auto',
      previous_response_id: paused.id,
      input: [output(paused.calls[0]!)],
    });
    expectError(response, 400, { code: 'model_mismatch', param: 'model' });
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
  });

  it('input_image or input_file with a file_id: 400 unsupported_file_id', async () => {
    const before = await globalSnapshot();
    const image = await post({
      model: 'scripted:auto',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'what is this?' },
            { type: 'input_image', file_id: 'file_abc' },
          ],
        },
      ],
    });
    expectError(image, 400, { code: 'unsupported_file_id', param: 'input[0].content[1]' });
    expect(image.body.error.message).toContain('file_id');
    const file = await post({
      model: 'scripted:auto',
      input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_abc' }] }],
    });
    expectError(file, 400, { code: 'unsupported_file_id', param: 'input[0].content[0]' });
    const badUrl = await post({
      model: 'scripted:auto',
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://example.com/cat.png' }] }],
    });
    expectError(badUrl, 400, { code: 'invalid_value', param: 'input[0].content[0].image_url' });
    expect(await globalSnapshot()).toEqual(before);
  });

  it('background with store: false: 400 background_requires_store, param background', async () => {
    const before = await globalSnapshot();
    const response = await post({ model: 'scripted:auto', input: 'hi', background: true, store: false });
    expectError(response, 400, { code: 'background_requires_store', param: 'background' });
    expect(await globalSnapshot()).toEqual(before);
  });

  it('stateless replay with a function_call lacking its output: 400 "No tool output found…", nothing created', async () => {
    const before = await globalSnapshot();
    const response = await post({
      model: 'scripted:auto',
      tools: [getWeather],
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        { type: 'function_call', call_id: 'call_replayed_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { role: 'user', content: 'And now?' },
      ],
    });
    expectError(response, 400, {
      code: 'tool_call_without_output',
      param: 'input[1]',
      message: 'No tool output found for function call call_replayed_1.',
    });
    const outputFirst = await post({
      model: 'scripted:auto',
      tools: [getWeather],
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        output('call_replayed_2', '{"temperature":18}'),
        { type: 'function_call', call_id: 'call_replayed_2', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
    });
    expectError(outputFirst, 400, { code: 'tool_output_without_call', param: 'input[1]' });
    expect(await globalSnapshot()).toEqual(before);
  });

  it('a function_call item sent with previous_response_id to a paused response: 400, the call stays pending', async () => {
    const paused = await pausedResponse();
    const before = await snapshot([paused.id], paused.conversationId);
    const response = await post({
      previous_response_id: paused.id,
      input: [
        {
          type: 'function_call',
          call_id: 'call_injected',
          name: 'request_approval',
          arguments: '{"action":"refund","amount":1}',
        },
        output('call_injected'),
      ],
    });
    expectError(response, 400, { code: 'unexpected_function_call', param: 'input[0]' });
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
  });

  it('unauthenticated requests: 401 in the OpenAI format, nothing created', async () => {
    const before = await globalSnapshot();
    const body = JSON.stringify({ model: 'scripted:auto', input: 'hi' });
    const missing = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expectError({ status: missing.status, body: await missing.json(), headers: missing.headers }, 401, {
      code: 'missing_api_key',
      param: null,
    });
    const wrongBearer = await post({ model: 'scripted:auto', input: 'hi' }, { authorization: 'Bearer bk_wrong_key' });
    expectError(wrongBearer, 401, { code: 'invalid_api_key', param: null });
    const wrongHeader = await post({ model: 'scripted:auto', input: 'hi' }, { authorization: 'Basic dXNlcjpwYXNz' });
    expectError(wrongHeader, 401, { code: 'invalid_authorization_header', param: null });
    const wrongXApiKey = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'bk_wrong_key' },
      body,
    });
    expectError({ status: wrongXApiKey.status, body: await wrongXApiKey.json(), headers: wrongXApiKey.headers }, 401, {
      code: 'invalid_api_key',
      param: null,
    });
    const read = await fetch(`${server.url}/v1/responses/resp_anything`);
    expectError({ status: read.status, body: await read.json(), headers: read.headers }, 401, {
      code: 'missing_api_key',
      param: null,
    });
    expect(await globalSnapshot()).toEqual(before);
  });

  it('x-api-key is accepted in place of Authorization: Bearer', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': server.key };
    const created = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'scripted:auto', input: 'hi' }),
    });
    expect(created.status).toBe(200);
    const view = (await created.json()) as { id: string; status: string };
    expect(view.status).toBe('completed');
    const read = await fetch(`${server.url}/v1/responses/${view.id}`, { headers: { 'x-api-key': server.key } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe(view.id);
  });

  it('reads of unknown responses: 404 response_not_found in the OpenAI format', async () => {
    for (const [method, path] of [
      ['GET', '/v1/responses/resp_missing'],
      ['DELETE', '/v1/responses/resp_missing'],
      ['POST', '/v1/responses/resp_missing/cancel'],
      ['GET', '/v1/responses/resp_missing/input_items'],
    ] as const) {
      const response = await server.request(method, path);
      expectError(response, 404, { code: 'response_not_found', param: 'response_id' });
    }
  });
});
