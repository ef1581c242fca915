import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  badInputHarness,
  expectError,
  getWeather,
  output,
  REFUND_REQUEST,
} from '../helpers/responses-bad-input-harness.ts';

/**
 * Responses API, bad input about tools: invalid, duplicate and unsupported tool definitions, and
 * tool_choice or allowed_tools naming a tool the request does not have. Each gets a precise
 * OpenAI-format error and leaves what is stored exactly as it was (see bad-input.test.ts for the
 * rest of the bad input and the harness in test/helpers/responses-bad-input-harness.ts).
 */
describe('Responses API: bad input', () => {
  const harness = badInputHarness();
  const { post, snapshot, globalSnapshot, pausedResponse, ledgerState } = harness;

  beforeAll(async () => {
    await harness.start();
  });
  afterAll(async () => harness.close());

  it('invalid tool names, duplicate names and more than 128 tools: 400, nothing created', async () => {
    const before = await globalSnapshot();
    const badName = await post({
      model: 'scripted:auto',
      input: 'hi',
      tools: [{ ...getWeather, name: 'get weather!' }],
    });
    expectError(badName, 400, { code: 'invalid_tool_name', param: 'tools[0].name' });
    expect(badName.body.error.message).toContain("'get weather!'");
    const longName = await post({
      model: 'scripted:auto',
      input: 'hi',
      tools: [getWeather, { ...getWeather, name: 'x'.repeat(65) }],
    });
    expectError(longName, 400, { code: 'invalid_tool_name', param: 'tools[1].name' });
    const duplicate = await post({ model: 'scripted:auto', input: 'hi', tools: [getWeather, getWeather] });
    expectError(duplicate, 400, { code: 'duplicate_tool_name', param: 'tools[1].name' });
    const many = Array.from({ length: 129 }, (_, index) => ({ ...getWeather, name: `tool_${index}` }));
    const tooMany = await post({ model: 'scripted:auto', input: 'hi', tools: many });
    expectError(tooMany, 400, { code: 'invalid_request', param: 'tools' });
    expect(tooMany.body.error.message).toContain('128');
    expect(await globalSnapshot()).toEqual(before);
  });

  it('an invalid tool name is refused when continuing an idle conversation, which stays as it was', async () => {
    const idle = await post({ model: 'scripted:auto', input: 'hello there' });
    expect(idle.body.baton_run.status).toBe('completed');
    const conversationId = idle.body.baton_run.conversation_id as string;
    const before = await snapshot([idle.body.id], conversationId);
    const response = await post({
      previous_response_id: idle.body.id,
      input: 'weather in Paris',
      tools: [{ ...getWeather, name: 'get weather!' }],
    });
    expectError(response, 400, { code: 'invalid_tool_name', param: 'tools[0].name' });
    expect(await snapshot([idle.body.id], conversationId)).toEqual(before);
  });

  it('an invalid tool name sent with the outputs of a paused response is refused too', async () => {
    const paused = await pausedResponse();
    const before = await snapshot([paused.id], paused.conversationId);
    const response = await post({
      previous_response_id: paused.id,
      input: [output(paused.calls[0]!)],
      tools: [{ ...getWeather, name: 'get weather!' }],
    });
    expectError(response, 400, { code: 'invalid_tool_name', param: 'tools[0].name' });
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
    expect(await ledgerState(paused.calls[0]!)).toBe('pending');
  });

  it('a tool_choice naming an absent tool sent with the outputs of a paused response is refused too', async () => {
    const paused = await pausedResponse();
    const before = await snapshot([paused.id], paused.conversationId);
    const response = await post({
      previous_response_id: paused.id,
      input: [output(paused.calls[0]!)],
      tool_choice: { type: 'function', name: 'no_such_tool' },
    });
    expectError(response, 400, { code: 'unknown_tool_choice', param: 'tool_choice.name' });
    expect(await snapshot([paused.id], paused.conversationId)).toEqual(before);
    expect(await ledgerState(paused.calls[0]!)).toBe('pending');
  });

  it('tool_choice or allowed_tools naming a tool the request does not have: 400, nothing created', async () => {
    const before = await globalSnapshot();
    const choice = await post({
      model: 'scripted:auto',
      input: 'weather in Paris',
      tools: [getWeather],
      tool_choice: { type: 'function', name: 'get_time' },
    });
    expectError(choice, 400, { code: 'unknown_tool_choice', param: 'tool_choice.name' });
    expect(choice.body.error.message).toContain("'get_time'");
    const noTools = await post({
      model: 'scripted:auto',
      input: 'weather in Paris',
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    expectError(noTools, 400, { code: 'unknown_tool_choice', param: 'tool_choice.name' });
    const allowed = await post({
      model: 'scripted:auto',
      input: 'weather in Paris',
      tools: [getWeather],
      tool_choice: {
        type: 'allowed_tools',
        mode: 'auto',
        tools: [
          { type: 'function', name: 'get_weather' },
          { type: 'function', name: 'get_time' },
        ],
      },
    });
    expectError(allowed, 400, { code: 'unknown_allowed_tool', param: 'tool_choice.tools[1].name' });
    expect(allowed.body.error.message).toContain("'get_time'");
    const emptyAllowed = await post({
      model: 'scripted:auto',
      input: 'hi',
      tools: [getWeather],
      tool_choice: { type: 'allowed_tools', tools: [] },
    });
    expectError(emptyAllowed, 400, { code: 'invalid_request', param: 'tool_choice.tools' });
    expect(await globalSnapshot()).toEqual(before);
  });

  it('a tool_choice naming an absent tool on a continued conversation: 400, the conversation stays as it was', async () => {
    const idle = await post({ model: 'refund-desk', input: 'Hello!', tool_choice: 'none' });
    const conversationId = idle.body.baton_run.conversation_id as string;
    const before = await snapshot([idle.body.id], conversationId);
    const response = await post({
      previous_response_id: idle.body.id,
      input: REFUND_REQUEST,
      tool_choice: { type: 'function', name: 'issue_refund' },
    });
    expectError(response, 400, { code: 'unknown_tool_choice', param: 'tool_choice.name' });
    // The agent's own tool counts as a tool of the request.
    expect(response.body.error.message).toContain('request_approval');
    expect(await snapshot([idle.body.id], conversationId)).toEqual(before);
  });

  it('a refused request does not create the implicit agent of a model never used before', async () => {
    const before = await globalSnapshot();
    // `scripted:parallel` is configured but no request of this file has named it yet.
    const badTool = await post({
      model: 'scripted:parallel',
      input: 'hi',
      tools: [{ ...getWeather, name: 'get weather!' }],
    });
    expectError(badTool, 400, { code: 'invalid_tool_name', param: 'tools[0].name' });
    const badChoice = await post({
      model: 'scripted:flaky',
      input: 'hi',
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    expectError(badChoice, 400, { code: 'unknown_tool_choice', param: 'tool_choice.name' });
    const after = await globalSnapshot();
    expect((after.agents.data as { name: string }[]).map((agent) => agent.name)).toEqual(
      (before.agents.data as { name: string }[]).map((agent) => agent.name),
    );
    expect(after).toEqual(before);
  });

  it('unsupported tool type (web_search): 400 unsupported_tool_type, param tools[0].type', async () => {
    const before = await globalSnapshot();
    const webSearch = await post({
      model: 'scripted:auto',
      input: 'search the web for Baton',
      tools: [{ type: 'web_search' }],
    });
    expectError(webSearch, 400, { code: 'unsupported_tool_type', param: 'tools[0].type' });
    expect(webSearch.body.error.message).toContain("'web_search'");
    const afterFunction = await post({
      model: 'scripted:auto',
      input: 'hi',
      tools: [getWeather, { type: 'file_search', vector_store_ids: ['vs_1'] }],
    });
    expectError(afterFunction, 400, { code: 'unsupported_tool_type', param: 'tools[1].type' });
    const unknownToolField = await post({
      model: 'scripted:auto',
      input: 'hi',
      tools: [{ ...getWeather, colour: 'red' }],
    });
    expectError(unknownToolField, 400, { code: 'invalid_request', param: 'tools[0]' });
    expect(unknownToolField.body.error.message).toContain("'colour'");
    expect(await globalSnapshot()).toEqual(before);
  });
});
