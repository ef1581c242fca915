import { defineTool } from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedStoreAgent, sessionPrograms } from '../faces/ces/sessions/session-fixtures.ts';
import { APP, createShipper, resultMessages, SEED, startClientHarness, type ClientHarness } from './client-fixtures.ts';

/** The same tool loop over the Responses face and CES sessions. */
describe('responses.run and ces.sessions.run', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness({}, [], { stores: sessionPrograms.stores });
    await createShipper(h.server);
    await seedStoreAgent(h.server);
  });
  afterAll(async () => h.close());

  const getWeather = defineTool({
    name: 'get_weather',
    description: 'Get current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
    handler: async ({ city }) => ({ city, temperature: 18, unit: 'celsius' }),
  });

  describe('responses.run', () => {
    it('declares defined tools, answers function_call items and returns the text (the seed flow)', async () => {
      const result = await h.baton.responses.run({
        model: 'scripted:auto',
        input: 'What is the weather in Paris?',
        tools: [getWeather],
      });
      expect(result.toolCalls).toEqual([
        expect.objectContaining({
          name: 'get_weather',
          input: { city: 'Paris' },
          result: '{"city":"Paris","temperature":18,"unit":"celsius"}',
        }),
      ]);
      expect(result.text).toContain('temperature: 18');
      expect(result.responseId).toMatch(/^resp_/);
      expect(result.message.raw.previous_response_id).toMatch(/^resp_/);
      expect(result.threadId).toMatch(/^thread_/);
    });

    it('takes an agent as model, and continues a conversation with previousResponseId', async () => {
      const tools = { request_approval: () => ({ approved: true, approved_by: 'resp@x.com' }) };
      const first = await h.baton.responses.run({ model: 'refund-desk', input: SEED, tools });
      expect(first.text).toContain('resp@x.com');
      const second = await h.baton.responses.run({
        input: 'And a refund of $30',
        previousResponseId: first.responseId!,
        tools,
      });
      expect(second.threadId).toBe(first.threadId);
      expect(second.toolCalls[0]?.input).toMatchObject({ amount: 30 });
    });

    it('sends all outputs of a parallel step in one request; an error is said in its output', async () => {
      const result = await h.baton.responses.run({
        model: 'weather',
        input: 'weather in SF and NYC',
        tools: {
          get_weather: (input) => {
            if (input.city === 'NYC') throw new Error('no data for NYC');
            return 'SF: 15C';
          },
        },
      });
      expect(result.rounds).toBe(1);
      const [message] = await resultMessages(h.server, result.threadId);
      expect(message?.content.map((block) => block.content)).toEqual(['SF: 15C', 'Error: no data for NYC']);
    });

    it('resumes a response that waits on outputs (created elsewhere, or before a restart)', async () => {
      const paused = await h.baton.responses.create({ model: 'refund-desk', input: SEED });
      expect(paused.baton_run?.status).toBe('requires_action');
      const result = await h.baton.responses.resume(paused.id, {
        tools: { request_approval: () => 'approved by resume@x.com' },
      });
      expect(result.text).toContain('resume@x.com');
      expect(result.message.raw.previous_response_id).toBe(paused.id);
    });

    it('cancelOnAbort cancels the paused response', async () => {
      const controller = new AbortController();
      let threadId = '';
      const run = h.baton.responses.run({
        model: 'refund-desk',
        input: SEED,
        cancelOnAbort: true,
        signal: controller.signal,
        tools: {
          request_approval: (_input, ctx) =>
            new Promise((_resolve, reject) => {
              threadId = ctx.threadId;
              ctx.signal.addEventListener('abort', () => reject(new Error('stop')));
              controller.abort();
            }),
        },
      });
      await expect(run).rejects.toMatchObject({ name: 'AbortError' });
      const calls = await h.baton.toolCalls.list({ threadId });
      expect(calls.data.map((call) => call.state)).toEqual(['cancelled']);
    });

    it('decides approvals with onApproval before sending the outputs', async () => {
      const result = await h.baton.responses.run({
        model: 'shipper',
        input: 'ship and weather',
        tools: { get_weather: () => 'Oslo: 1C' },
        onApproval: () => ({ approve: true }),
      });
      expect(result.toolCalls.map((call) => call.result)).toEqual(['Oslo: 1C']);
      expect(result.text).toContain('Done');
      const [message] = await resultMessages(h.server, result.threadId);
      expect(message?.content).toHaveLength(2);
    });
  });

  describe('ces.sessions.run', () => {
    const session = (id: string): string => `${APP}/sessions/${id}`;

    it('answers client functions (keyed by displayName) with structured responses and returns the text', async () => {
      const calls: unknown[] = [];
      const result = await h.baton.ces.sessions.run(session('sdk-1'), 'Where is the nearest store?', {
        tools: {
          get_nearest_store: (input, ctx) => (
            calls.push([input, ctx.threadId, ctx.face]),
            { name: 'Alibaba', address: '43 Alpha Road' }
          ),
        },
      });
      expect(calls).toEqual([[{ zip_code: '92031' }, session('sdk-1'), 'ces']]);
      expect(result.text).toContain('"name":"Alibaba"');
      expect(result.threadId).toBe(session('sdk-1'));
      const conversation = await h.baton.ces.sessions.conversation(session('sdk-1'));
      const responses = conversation.turns?.flatMap((turn) =>
        turn.messages.flatMap((message) => message.chunks.filter((chunk) => 'toolResponse' in chunk)),
      );
      expect(responses).toEqual([
        {
          toolResponse: expect.objectContaining({
            response: { output: { name: 'Alibaba', address: '43 Alpha Road' } },
          }),
        },
      ]);
    });

    it('sends the responses of parallel calls in one input; a throw becomes an error response', async () => {
      const result = await h.baton.ces.sessions.run(session('sdk-2'), 'two stores please', {
        tools: {
          get_nearest_store: (input) => {
            if (input.zip_code === '10001') throw new Error('store database offline');
            return 'Store 92031';
          },
        },
      });
      expect(result.rounds).toBe(1);
      const entry = await h.baton.toolCalls.get(result.toolCalls[0]!.id);
      const [message] = await resultMessages(h.server, entry.thread_id);
      expect(message?.content.map((block) => [block.content, block.is_error ?? false])).toEqual([
        ['Store 92031', false],
        ['store database offline', true],
      ]);
      expect(result.text).toContain('The tool failed');
    });

    it('settles an approval next to a client function, then returns the answer', async () => {
      const result = await h.baton.ces.sessions.run(session('sdk-3'), 'ship and weather', {
        config: { entryAgent: `${APP}/agents/shipper` },
        tools: { get_weather: () => ({ celsius: 2 }) },
        onApproval: (call) => ({ approve: call.name === 'shipping_cost' }),
      });
      expect(result.toolCalls.map((call) => call.name)).toEqual(['get_weather']);
      expect(result.text).toContain('Done');
    });

    it('waits for an approval decided elsewhere', async () => {
      const run = h.baton.ces.sessions.run(session('sdk-4'), 'ship to 92031', {
        config: { entryAgent: `${APP}/agents/shipper` },
        pollIntervalMs: 20,
      });
      let pending: { id: string }[] = [];
      while (pending.length === 0) {
        pending = (await h.server.request('GET', '/v1/tool-calls?state=pending&agent=shipper')).body.data;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await h.server.request('POST', `/v1/tool-calls/${pending[0]!.id}/decision`, {
        approve: false,
        reason: 'not today',
      });
      const result = await run;
      expect(result.text).toMatch(/Failed: .*not today/);
    });

    it('refuses a name that is not a session', async () => {
      await expect(h.baton.ces.sessions.run('sessions/x', 'hi')).rejects.toThrow(/is not a session name/);
    });
  });
});
