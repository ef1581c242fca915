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

/**
 * A program whose first model call fails with a 503 that asks for a 500 ms wait; with one retry
 * allowed, a `background` response is reliably still running when the create call returns.
 */
const slowProgram = {
  rules: [
    { when: { user: 'slow' }, fail: { status: 503, message: 'warming up', times: 1, retry_after_ms: 500 } },
    { say: 'Done after a pause.' },
  ],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The life of a response after its creation: read, delete, cancel, background, store, input items,
 * echoes. Continuing and branching are in lifecycle-continuations.test.ts.
 */
describe('Responses API: lifecycle', () => {
  let server: TestBaton;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startTestBaton({ maxModelRetries: 1, scripted: { slow: slowProgram }, agents: [DEMO_AGENT] });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
  });
  afterAll(async () => server?.close());

  describe('retrieve and delete', () => {
    it('GET by id equals the create response, for a text answer and for a paused one', async () => {
      const text = await client.responses.create({ model: 'scripted:auto', input: 'Hello there' });
      expect(checkResponse(text)).toEqual([]);
      expect(text.status).toBe('completed');
      expect(await client.responses.retrieve(text.id)).toEqual(text);

      const { response: paused } = await pausedRefund(client);
      expect(checkResponse(paused)).toEqual([]);
      expect(await client.responses.retrieve(paused.id)).toEqual(paused);
    });

    it('DELETE: then GET is 404 and continuing it is previous_response_not_found', async () => {
      const first = await client.responses.create({ model: 'scripted:auto', input: 'Remember the number 7.' });
      await client.responses.delete(first.id);
      await expect(client.responses.retrieve(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      await expect(client.responses.retrieve(first.id)).rejects.toMatchObject({
        status: 404,
        code: 'response_not_found',
      });
      await expect(
        client.responses.create({ model: 'scripted:auto', previous_response_id: first.id, input: 'Which number?' }),
      ).rejects.toMatchObject({
        status: 400,
        code: 'previous_response_not_found',
        param: 'previous_response_id',
      });
      await expect(client.responses.inputItems.list(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      await expect(client.responses.delete(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      const second = await client.responses.create({ model: 'scripted:auto', input: 'Another one.' });
      const raw = await server.request('DELETE', `/v1/responses/${second.id}`);
      expect(raw.status).toBe(200);
      expect(raw.body).toEqual({ id: second.id, object: 'response.deleted', deleted: true });
      // Its only response gone, the conversation goes too.
      expect((await server.request('GET', `/v1/threads/${batonRun(first).conversation_id}`)).status).toBe(404);
    });

    it('deleting a paused response cancels its pending calls (the ledger shows them cancelled)', async () => {
      const greeting = await client.responses.create({
        model: 'refund-desk',
        input: 'Hello, a question first.',
        tool_choice: 'none',
      });
      expect(functionCalls(greeting)).toEqual([]);
      const { response: paused, callId } = await pausedRefund(client, greeting.id);
      expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('pending');

      await client.responses.delete(paused.id);
      const entry = await server.request('GET', `/v1/tool-calls/${callId}`);
      expect(entry.status).toBe(200);
      expect(entry.body.state).toBe('cancelled');
      expect(entry.body.result.is_error).toBe(true);
      const pending = await server.request('GET', '/v1/tool-calls?state=pending&limit=100');
      expect((pending.body.data as { id: string }[]).map((call) => call.id)).not.toContain(callId);
      // The conversation keeps its earlier response, is no longer waiting, and can go on from it.
      const thread = await server.request('GET', `/v1/threads/${batonRun(greeting).conversation_id}`);
      expect(thread.body.status).toBe('idle');
      await expect(client.responses.retrieve(greeting.id)).resolves.toMatchObject({ id: greeting.id });
      const next = await client.responses.create({
        previous_response_id: greeting.id,
        input: 'Thanks, that is all.',
        tool_choice: 'none',
      });
      expect(next.status).toBe('completed');
    });

    it("deleting a paused conversation's only response leaves no pending call behind", async () => {
      const { response: paused, callId } = await pausedRefund(client);
      await client.responses.delete(paused.id);
      const pending = await server.request('GET', '/v1/tool-calls?state=pending&limit=100');
      expect((pending.body.data as { id: string }[]).map((call) => call.id)).not.toContain(callId);
      // The conversation (and with it its ledger rows) is deleted with its last response; if the
      // entry were kept, it would have to say cancelled.
      const entry = await server.request('GET', `/v1/tool-calls/${callId}`);
      if (entry.status === 200) expect(entry.body.state).toBe('cancelled');
      else expect(entry.status).toBe(404);
      expect((await server.request('GET', `/v1/threads/${batonRun(paused).conversation_id}`)).status).toBe(404);
    });
  });

  describe('cancel', () => {
    it('cancelling a paused response: status cancelled, its calls cancelled with synthetic results', async () => {
      const { response: paused, callId } = await pausedRefund(client);
      const cancelled = await client.responses.cancel(paused.id);
      expect(checkResponse(cancelled)).toEqual([]);
      expect(cancelled.id).toBe(paused.id);
      expect(cancelled.status).toBe('cancelled');
      expect(batonRun(cancelled)).toMatchObject({ status: 'cancelled', pending_tool_call_ids: [] });
      expect(functionCalls(cancelled).map((call) => call.call_id)).toEqual([callId]);
      await expect(client.responses.retrieve(paused.id)).resolves.toMatchObject({ status: 'cancelled' });

      const entry = await server.request('GET', `/v1/tool-calls/${callId}`);
      expect(entry.body.state).toBe('cancelled');
      expect(entry.body.result).toEqual({ content: expect.stringMatching(/^Cancelled/), is_error: true });
      const messages = await server.request('GET', `/v1/threads/${batonRun(paused).conversation_id}/messages`);
      const blocks = (messages.body.data as { content: unknown }[]).flatMap((message) =>
        Array.isArray(message.content) ? message.content : [],
      );
      expect(blocks).toContainEqual(
        expect.objectContaining({ type: 'tool_result', tool_call_id: callId, is_error: true }),
      );

      // Too late for the output now; a new message starts a new turn from the cancelled response.
      await expect(
        client.responses.create({
          previous_response_id: paused.id,
          input: [{ type: 'function_call_output', call_id: callId, output: APPROVED }],
        }),
      ).rejects.toMatchObject({
        status: 400,
      });
      const next = await client.responses.create({
        previous_response_id: paused.id,
        input: 'Forget it.',
        tool_choice: 'none',
      });
      expect(next.status).toBe('completed');
    });

    it('cancelling a completed response, or one already cancelled: 409', async () => {
      const done = await client.responses.create({ model: 'scripted:auto', input: 'Hello' });
      expect(done.status).toBe('completed');
      await expect(client.responses.cancel(done.id)).rejects.toBeInstanceOf(OpenAI.ConflictError);
      await expect(client.responses.cancel(done.id)).rejects.toMatchObject({
        status: 409,
        code: 'response_not_cancellable',
      });
      expect(await client.responses.retrieve(done.id)).toEqual(done);

      const { response: paused, callId } = await pausedRefund(client);
      const answered = await client.responses.create({
        previous_response_id: paused.id,
        input: [{ type: 'function_call_output', call_id: callId, output: APPROVED }],
      });
      expect(answered.status).toBe('completed');
      // The paused response was continued: nothing of it is left to cancel.
      await expect(client.responses.cancel(paused.id)).rejects.toMatchObject({
        status: 409,
        code: 'response_not_cancellable',
      });
      await expect(client.responses.cancel(answered.id)).rejects.toMatchObject({ status: 409 });
      expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('completed');

      const { response: again } = await pausedRefund(client);
      await client.responses.cancel(again.id);
      await expect(client.responses.cancel(again.id)).rejects.toMatchObject({
        status: 409,
        code: 'response_not_cancellable',
      });
    });
  });

  it('background: true returns at once (queued or in_progress), then GET polls to completed', async () => {
    const created = await client.responses.create({ model: 'scripted:slow', input: 'slow please', background: true });
    expect(['queued', 'in_progress']).toContain(created.status);
    expect(created.background).toBe(true);
    expect(created.output).toEqual([]);
    expect(created.usage ?? null).toBeNull();
    expect(checkResponse(created)).toEqual([]);

    let current = created;
    const deadline = Date.now() + 10_000;
    while (current.status === 'queued' || current.status === 'in_progress') {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(50);
      current = await client.responses.retrieve(created.id);
    }
    expect(current.status).toBe('completed');
    expect(current.output_text).toBe('Done after a pause.');
    expect(current.background).toBe(true);
    expect(current.completed_at).not.toBeNull();
    expect(checkResponse(current)).toEqual([]);
  });

  it('store: false: GET is 404, continuing over HTTP is previous_response_not_found, its conversation is gone', async () => {
    const unstored = await client.responses.create({
      model: 'scripted:auto',
      input: 'Do not keep this.',
      store: false,
    });
    expect(unstored.status).toBe('completed');
    expect((unstored as unknown as { store: boolean }).store).toBe(false);
    expect(unstored.output_text.length).toBeGreaterThan(0);
    await expect(client.responses.retrieve(unstored.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.responses.inputItems.list(unstored.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      client.responses.create({ model: 'scripted:auto', previous_response_id: unstored.id, input: 'And now?' }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'previous_response_not_found',
    });
    expect((await server.request('GET', `/v1/threads/${batonRun(unstored).conversation_id}`)).status).toBe(404);

    // Paused with a call: nothing is kept either, not even a pending ledger entry.
    const paused = await client.responses.create({ model: 'refund-desk', input: REFUND_REQUEST, store: false });
    const [call] = functionCalls(paused);
    expect(call?.name).toBe('request_approval');
    expect((await server.request('GET', `/v1/threads/${batonRun(paused).conversation_id}`)).status).toBe(404);
    expect((await server.request('GET', `/v1/tool-calls/${call!.call_id}`)).status).toBe(404);
  });

  it('input_items: limit, order asc/desc, after, has_more, first_id/last_id', async () => {
    const texts = ['message 1', 'message 2', 'message 3', 'message 4', 'message 5'];
    const response = await client.responses.create({
      model: 'scripted:auto',
      input: texts.map((text) => ({ role: 'user' as const, content: text })),
    });
    const textOf = (item: any): string => item.content[0].text;
    const page = async (query: string) => {
      const result = await server.request('GET', `/v1/responses/${response.id}/input_items${query}`);
      expect(result.status).toBe(200);
      return result.body as {
        object: string;
        data: any[];
        first_id: string | null;
        last_id: string | null;
        has_more: boolean;
      };
    };

    const all = await page('');
    expect(all.object).toBe('list');
    expect(all.data.map(textOf)).toEqual([...texts].reverse()); // default order: desc
    expect(all.has_more).toBe(false);
    expect(all.first_id).toBe(all.data[0].id);
    expect(all.last_id).toBe(all.data[4].id);
    expect(new Set(all.data.map((item) => item.id)).size).toBe(5);

    const desc1 = await page('?limit=2');
    expect(desc1.data.map(textOf)).toEqual(['message 5', 'message 4']);
    expect(desc1).toMatchObject({ has_more: true, first_id: desc1.data[0].id, last_id: desc1.data[1].id });
    const desc2 = await page(`?limit=2&after=${desc1.last_id}`);
    expect(desc2.data.map(textOf)).toEqual(['message 3', 'message 2']);
    expect(desc2.has_more).toBe(true);
    const desc3 = await page(`?limit=2&after=${desc2.last_id}`);
    expect(desc3.data.map(textOf)).toEqual(['message 1']);
    expect(desc3).toMatchObject({ has_more: false, first_id: desc3.data[0].id, last_id: desc3.data[0].id });

    const asc1 = await page('?limit=3&order=asc');
    expect(asc1.data.map(textOf)).toEqual(['message 1', 'message 2', 'message 3']);
    expect(asc1.has_more).toBe(true);
    const asc2 = await page(`?limit=3&order=asc&after=${asc1.last_id}`);
    expect(asc2.data.map(textOf)).toEqual(['message 4', 'message 5']);
    expect(asc2.has_more).toBe(false);
    const exact = await page('?limit=5&order=asc');
    expect(exact.has_more).toBe(false);
    const empty = await page(`?order=asc&after=${asc2.last_id}`);
    expect(empty).toMatchObject({ data: [], first_id: null, last_id: null, has_more: false });

    // The SDK's auto-pagination walks the same pages.
    const walked: string[] = [];
    for await (const item of client.responses.inputItems.list(response.id, { limit: 2, order: 'asc' }))
      walked.push(textOf(item));
    expect(walked).toEqual(texts);

    const badCursor = await server.request('GET', `/v1/responses/${response.id}/input_items?after=msg_not_here`);
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error).toMatchObject({ code: 'invalid_cursor', param: 'after' });
    const badLimit = await server.request('GET', `/v1/responses/${response.id}/input_items?limit=0`);
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.param).toBe('limit');
  });

  it('instructions are echoed and not carried over to the next response', async () => {
    const first = await client.responses.create({
      model: 'scripted:auto',
      input: 'Hello',
      instructions: 'Answer in one short sentence.',
    });
    expect(first.instructions).toBe('Answer in one short sentence.');
    expect((await client.responses.retrieve(first.id)).instructions).toBe('Answer in one short sentence.');
    const second = await client.responses.create({ previous_response_id: first.id, input: 'And again' });
    expect(second.instructions).toBeNull();
    expect((await client.responses.retrieve(second.id)).instructions).toBeNull();
    const third = await client.responses.create({
      previous_response_id: second.id,
      input: 'Once more',
      instructions: 'Be formal.',
    });
    expect(third.instructions).toBe('Be formal.');
  });

  it('metadata is echoed; more than 16 keys are refused', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`key_${index}`, `value ${index}`]));
    const response = await client.responses.create({ model: 'scripted:auto', input: 'Hello', metadata });
    expect(response.metadata).toEqual(metadata);
    expect((await client.responses.retrieve(response.id)).metadata).toEqual(metadata);
    const next = await client.responses.create({ previous_response_id: response.id, input: 'Again' });
    expect(next.metadata).toEqual({});

    const tooMany = { ...metadata, key_16: 'one too many' };
    await expect(
      client.responses.create({ model: 'scripted:auto', input: 'Hello', metadata: tooMany }),
    ).rejects.toMatchObject({ status: 400, param: 'metadata' });
    await expect(
      client.responses.create({ model: 'scripted:auto', input: 'Hello', metadata: { ['k'.repeat(65)]: 'v' } }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(
      client.responses.create({ model: 'scripted:auto', input: 'Hello', metadata: { k: 'v'.repeat(513) } }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('every spec field is echoed as sent, on create and on GET', async () => {
    const sent = {
      model: 'scripted:auto',
      input: 'What is the weather in Paris?',
      instructions: 'Be brief.',
      tools: [getWeather],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      max_tool_calls: 3,
      text: { format: { type: 'text' }, verbosity: 'low' },
      reasoning: { effort: 'low', summary: 'concise' },
      temperature: 0.3,
      top_p: 0.9,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      top_logprobs: 3,
      max_output_tokens: 500,
      truncation: 'auto',
      service_tier: 'flex',
      metadata: { customer: 'c-42' },
      store: true,
      background: false,
      safety_identifier: 'user-1234',
      prompt_cache_key: 'cache-key-1',
    };
    const created = await server.request('POST', '/v1/responses', sent);
    expect(created.status).toBe(200);
    expect(checkResponse(created.body)).toEqual([]);
    const { input: _input, ...echoed } = sent;
    expect(created.body).toMatchObject(echoed);
    expect(created.body.tools).toEqual([getWeather]);
    const read = await client.responses.retrieve(created.body.id);
    expect(read).toMatchObject(echoed);

    // Left out, each field has the spec's default.
    const defaults = await client.responses.create({ model: 'scripted:auto', input: 'Hello' });
    expect(defaults).toMatchObject({
      instructions: null,
      tools: [],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      text: { format: { type: 'text' } },
      reasoning: null,
      temperature: 1,
      top_p: 1,
      max_output_tokens: null,
      truncation: 'disabled',
      service_tier: 'default',
      metadata: {},
      store: true,
      background: false,
      safety_identifier: null,
      prompt_cache_key: null,
    });
    expect((defaults as unknown as { max_tool_calls: unknown }).max_tool_calls).toBeNull();
  });

  it('text.format json_schema is echoed as sent', async () => {
    const format = {
      type: 'json_schema' as const,
      name: 'weather_answer',
      description: 'The answer as JSON',
      schema: {
        type: 'object',
        properties: { answer: { type: 'string' } },
        required: ['answer'],
        additionalProperties: false,
      },
      strict: true,
    };
    const response = await client.responses.create({
      model: 'scripted:auto',
      input: 'Answer in JSON please.',
      text: { format },
    });
    expect(response.status).toBe('completed');
    expect(response.text).toEqual({ format });
    expect((await client.responses.retrieve(response.id)).text).toEqual({ format });
    const jsonObject = await client.responses.create({
      model: 'scripted:auto',
      input: 'JSON please.',
      text: { format: { type: 'json_object' } },
    });
    expect(jsonObject.text?.format).toEqual({ type: 'json_object' });
  });
});
