import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { checkResponse } from '../helpers/open-responses-contract.ts';
import {
  APPROVED,
  batonRun,
  functionCalls,
  getWeather,
  pausedRefund,
  REFUND_REQUEST,
} from '../helpers/responses-lifecycle-fixtures.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

const getTime = {
  type: 'function' as const,
  name: 'get_time',
  description: 'Get the current local time of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: null,
};

const TWO_CITIES = 'What is the weather in Paris and what is the weather in Tokyo?';

/**
 * Going on from a response: stateless replay, branching from an older response, tool choice and
 * call limits with their answered calls, a Baton agent as model. The rest of a response's life is in
 * lifecycle.test.ts.
 */
describe('Responses API: lifecycle', () => {
  let server: TestBaton;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startTestBaton({ maxModelRetries: 1, agents: [DEMO_AGENT] });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
  });
  afterAll(async () => server?.close());

  it('stateless replay: no previous_response_id, the input carries the message, the call and its output → completed', async () => {
    const question = 'What is the weather in Paris right now?';
    const first = await client.responses.create({
      model: 'scripted:auto',
      input: question,
      tools: [getWeather],
      store: false,
    });
    const [call] = functionCalls(first);
    if (!call) throw new Error('expected a function_call');
    expect(call.name).toBe('get_weather');

    const replayed = await client.responses.create({
      model: 'scripted:auto',
      tools: [getWeather],
      input: [
        { role: 'user', content: question },
        call,
        {
          type: 'function_call_output',
          call_id: call.call_id,
          output: JSON.stringify({ temperature: 18, conditions: 'sunny' }),
        },
      ],
    });
    expect(checkResponse(replayed)).toEqual([]);
    expect(replayed.status).toBe('completed');
    expect(replayed.previous_response_id).toBeNull();
    expect(functionCalls(replayed)).toEqual([]);
    expect(replayed.output_text).toContain('get_weather');
    expect(replayed.output_text).toContain('18');
    const items = await client.responses.inputItems.list(replayed.id, { order: 'asc' });
    expect(items.data.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call_output']);
    // Replayed calls are history, not work: nothing enters the ledger.
    expect(
      (await server.request('GET', `/v1/tool-calls?thread_id=${batonRun(replayed).conversation_id}`)).body.data,
    ).toEqual([]);
  });

  describe('branching', () => {
    it('continuing from an older, idle response branches: the branch history excludes the later turns, both chains go on', async () => {
      const root = await client.responses.create({ model: 'scripted:auto', input: 'first message' });
      const main = await client.responses.create({ previous_response_id: root.id, input: 'second message on main' });
      const conversation = batonRun(root).conversation_id;
      expect(batonRun(main).conversation_id).toBe(conversation);

      const branch = await client.responses.create({ previous_response_id: root.id, input: 'branch message' });
      expect(branch.status).toBe('completed');
      expect(branch.previous_response_id).toBe(root.id);
      const branchConversation = batonRun(branch).conversation_id;
      expect(branchConversation).not.toBe(conversation);
      expect(branch.output_text).toContain('branch message');
      expect(branch.output_text).not.toContain('second message');

      const contents = async (conversationId: string) => {
        const messages = await server.request('GET', `/v1/threads/${conversationId}/messages`);
        expect(messages.status).toBe(200);
        return (messages.body.data as { role: string; content: unknown }[]).map(
          (message) => `${message.role}: ${String(message.content)}`,
        );
      };
      const branchHistory = await contents(branchConversation);
      expect(branchHistory.filter((line) => line.startsWith('user: '))).toEqual([
        'user: first message',
        'user: branch message',
      ]);
      expect(branchHistory.join('\n')).not.toContain('second message on main');
      expect((await contents(conversation)).join('\n')).not.toContain('branch message');

      // A second branch from the same point is independent of the first.
      const other = await client.responses.create({ previous_response_id: root.id, input: 'another branch' });
      const otherConversation = batonRun(other).conversation_id;
      expect(new Set([conversation, branchConversation, otherConversation]).size).toBe(3);
      expect((await contents(otherConversation)).filter((line) => line.startsWith('user: '))).toEqual([
        'user: first message',
        'user: another branch',
      ]);

      // Every response still reads, and both chains continue in their own conversations.
      for (const response of [root, main, branch, other])
        expect(await client.responses.retrieve(response.id)).toEqual(response);
      const mainNext = await client.responses.create({ previous_response_id: main.id, input: 'third on main' });
      expect(batonRun(mainNext).conversation_id).toBe(conversation);
      const branchNext = await client.responses.create({ previous_response_id: branch.id, input: 'second on branch' });
      expect(batonRun(branchNext).conversation_id).toBe(branchConversation);
      expect((await contents(branchConversation)).filter((line) => line.startsWith('user: '))).toEqual([
        'user: first message',
        'user: branch message',
        'user: second on branch',
      ]);
      expect((await contents(conversation)).filter((line) => line.startsWith('user: '))).toEqual([
        'user: first message',
        'user: second message on main',
        'user: third on main',
      ]);
    });

    it('continuing from a response whose calls were answered later in its conversation: 409 response_already_continued', async () => {
      const { response: paused, callId } = await pausedRefund(client);
      const answered = await client.responses.create({
        previous_response_id: paused.id,
        input: [{ type: 'function_call_output', call_id: callId, output: APPROVED }],
      });
      expect(answered.status).toBe('completed');
      const before = await server.request('GET', `/v1/threads/${batonRun(paused).conversation_id}/messages`);

      const attempt = client.responses.create({ previous_response_id: paused.id, input: 'Actually, make it $600.' });
      await expect(attempt).rejects.toBeInstanceOf(OpenAI.ConflictError);
      await expect(
        client.responses.create({ previous_response_id: paused.id, input: 'Actually, make it $600.' }),
      ).rejects.toMatchObject({
        status: 409,
        code: 'response_already_continued',
      });
      const raw = await server.request('POST', '/v1/responses', {
        previous_response_id: paused.id,
        input: 'Actually, make it $600.',
      });
      expect(raw.status).toBe(409);
      expect(raw.body.error.continued_by).toBe(answered.id);
      expect(raw.body.error.message).toContain(answered.id);

      expect((await server.request('GET', `/v1/threads/${batonRun(paused).conversation_id}/messages`)).body).toEqual(
        before.body,
      );
      // From the answering response the conversation goes on as usual.
      const next = await client.responses.create({ previous_response_id: answered.id, input: 'Thanks!' });
      expect(batonRun(next).conversation_id).toBe(batonRun(paused).conversation_id);
    });
  });

  describe('tool choice and call limits', () => {
    it('a request that asks for two things makes two parallel calls by default (the control case)', async () => {
      const response = await client.responses.create({
        model: 'scripted:auto',
        input: TWO_CITIES,
        tools: [getWeather],
      });
      expect(functionCalls(response).map((call) => JSON.parse(call.arguments).city)).toEqual(['Paris', 'Tokyo']);
    });

    it('max_tool_calls: 1 yields at most one function_call, and the turn completes once it is answered', async () => {
      const created = await server.request('POST', '/v1/responses', {
        model: 'scripted:auto',
        input: TWO_CITIES,
        tools: [getWeather],
        max_tool_calls: 1,
      });
      expect(created.status).toBe(200);
      expect(created.body.max_tool_calls).toBe(1);
      const calls = (created.body.output as { type: string; call_id: string }[]).filter(
        (item) => item.type === 'function_call',
      );
      expect(calls).toHaveLength(1);
      expect(created.body.baton_run.pending_tool_call_ids).toEqual([calls[0]!.call_id]);
      const answered = await client.responses.create({
        previous_response_id: created.body.id,
        input: [{ type: 'function_call_output', call_id: calls[0]!.call_id, output: '{"temperature":18}' }],
      });
      expect(answered.status).toBe('completed');
      expect(functionCalls(answered)).toEqual([]);
    });

    it('parallel_tool_calls: false yields one function_call at a time', async () => {
      const response = await client.responses.create({
        model: 'scripted:auto',
        input: TWO_CITIES,
        tools: [getWeather],
        parallel_tool_calls: false,
      });
      expect(response.parallel_tool_calls).toBe(false);
      expect(functionCalls(response)).toHaveLength(1);
      expect(batonRun(response).pending_tool_call_ids).toHaveLength(1);
    });

    it("tool_choice: 'none' yields no function_call", async () => {
      const response = await client.responses.create({
        model: 'scripted:auto',
        input: 'What is the weather in Paris?',
        tools: [getWeather],
        tool_choice: 'none',
      });
      expect(response.tool_choice).toBe('none');
      expect(functionCalls(response)).toEqual([]);
      expect(response.output_text.length).toBeGreaterThan(0);
      expect(batonRun(response).status).toBe('completed');
    });

    it('allowed_tools restricts the calls to the named tools; all tools are still echoed', async () => {
      const toolChoice = {
        type: 'allowed_tools' as const,
        mode: 'auto' as const,
        tools: [{ type: 'function' as const, name: 'get_time' }],
      };
      const response = await client.responses.create({
        model: 'scripted:auto',
        input: 'What is the weather in Paris?',
        tools: [getWeather, getTime],
        tool_choice: toolChoice,
      });
      const calls = functionCalls(response);
      expect(calls.length).toBeGreaterThan(0);
      expect(new Set(calls.map((call) => call.name))).toEqual(new Set(['get_time']));
      expect(response.tool_choice).toEqual(toolChoice);
      expect(response.tools.map((tool) => (tool.type === 'function' ? tool.name : tool.type))).toEqual([
        'get_weather',
        'get_time',
      ]);
    });
  });

  it('a Baton agent as model: refund-desk calls request_approval without tools in the request, then completes on the output', async () => {
    const first = await client.responses.create({ model: 'refund-desk', input: REFUND_REQUEST });
    expect(checkResponse(first)).toEqual([]);
    expect(first.model).toBe('refund-desk');
    expect(first.tools).toEqual([]);
    const calls = functionCalls(first);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe('request_approval');
    expect(JSON.parse(calls[0]!.arguments)).toMatchObject({ action: 'refund', amount: 500 });

    const second = await client.responses.create({
      model: 'refund-desk',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: calls[0]!.call_id, output: APPROVED }],
    });
    expect(checkResponse(second)).toEqual([]);
    expect(second.status).toBe('completed');
    expect(functionCalls(second)).toEqual([]);
    expect(second.output_text).toContain('manager@company.com');
    expect((await server.request('GET', `/v1/tool-calls/${calls[0]!.call_id}`)).body.state).toBe('completed');
  });
});
