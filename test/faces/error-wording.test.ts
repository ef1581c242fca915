import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { testPrograms, weatherAgent } from '../helpers/test-agents.ts';
import { APP, runSession, seedStoreAgent, sessionPrograms } from './ces/sessions/session-fixtures.ts';

const REFUND = 'I need approval to process a $500 refund';

/**
 * The engine words its errors neutrally and gives the ids as data; each face words them in its
 * own dialect. These are the exact texts each face shows, built from that data.
 */
describe('engine errors in each face’s words', () => {
  let server: TestBaton;

  beforeAll(async () => {
    server = await startTestBaton({
      scripted: { ...testPrograms, ...sessionPrograms },
      // The strict agent refuses a partial set of results (others hold them: 202).
      agents: [DEMO_AGENT, weatherAgent, { ...weatherAgent, name: 'weather-strict', partial_results: 'reject' }],
    });
    await seedStoreAgent(server);
  });
  afterAll(async () => server?.close());

  async function pausedThread(agent = 'refund-desk', text = REFUND): Promise<{ thread: string; calls: string[] }> {
    const thread = (await server.request('POST', '/v1/threads', { agent })).body.id as string;
    const paused = await server.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: text });
    const calls = paused.body.choices[0].message.tool_calls.map((call: { id: string }) => call.id) as string[];
    return { thread, calls };
  }

  describe('Threads and the ledger (native)', () => {
    it('new input while calls are pending names the thread, its calls and the way out', async () => {
      const { thread, calls } = await pausedThread();
      const refused = await server.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'hi' });
      expect(refused.body.error.message).toBe(
        `Thread '${thread}' is waiting for the results of tool calls ${calls.join(', ')}. Send them as tool_result ` +
          `blocks in one message, or cancel the turn with POST /v1/threads/${thread}/cancel, before sending new input.`,
      );
    });

    it('an unknown tool_call_id lists the pending calls; a partial set names the missing ones', async () => {
      const { thread, calls } = await pausedThread('weather-strict', 'weather');
      const unknown = await server.request('POST', `/v1/threads/${thread}/messages`, {
        role: 'user',
        content: [{ type: 'tool_result', tool_call_id: 'call_nope', content: 'x' }],
      });
      expect(unknown.body.error.message).toBe(
        `Invalid tool_call_id 'call_nope' at content[0].tool_call_id: thread '${thread}' has no tool call with this ` +
          `id. Use the exact ids from tool_calls[].id; pending calls: ${calls.join(', ')}.`,
      );
      const partial = await server.request('POST', `/v1/threads/${thread}/messages`, {
        role: 'user',
        content: [{ type: 'tool_result', tool_call_id: calls[0], content: 'sunny' }],
      });
      expect(partial.body.error.message).toBe(
        `Missing results for pending tool calls ${calls[1]}: send the results of all 2 pending calls in one ` +
          'message, or submit them one at a time with POST /v1/tool-calls/{id}/result.',
      );
    });

    it('cancelling an idle thread says there is nothing to cancel; an unknown thread is a thread', async () => {
      const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id as string;
      const idle = await server.request('POST', `/v1/threads/${thread}/cancel`);
      expect(idle.body.error.message).toBe(
        `Thread '${thread}' has nothing to cancel: no turn is running or waiting for tool results.`,
      );
      const missing = await server.request('GET', '/v1/threads/thread_nope');
      expect(missing.body.error.message).toBe("No thread found with id 'thread_nope'.");
    });
  });

  describe('Responses', () => {
    it('continuing an older response while the latest waits, and cancelling a finished response', async () => {
      const first = await server.request('POST', '/v1/responses', {
        model: 'refund-desk',
        input: 'Hello.',
        tool_choice: 'none',
      });
      const latest = await server.request('POST', '/v1/responses', {
        previous_response_id: first.body.id,
        input: REFUND,
      });
      const pending = latest.body.baton_run.pending_tool_call_ids as string[];
      const refused = await server.request('POST', '/v1/responses', {
        previous_response_id: first.body.id,
        input: 'Something else.',
      });
      expect(refused.body.error.message).toBe(
        `Previous response '${first.body.id}' is not the latest of its conversation: '${latest.body.id}' is, and it ` +
          `waits for the outputs of ${pending.join(', ')}. Continue from '${latest.body.id}' with those outputs, or ` +
          `cancel it (POST /v1/responses/${latest.body.id}/cancel) first.`,
      );
      const finished = await server.request('POST', `/v1/responses/${first.body.id}/cancel`);
      expect(finished.body.error.message).toBe(
        `Response '${first.body.id}' cannot be cancelled: it is completed, with nothing running or waiting for ` +
          'tool outputs.',
      );
    });

    it('an unknown previous response and an unknown item reference', async () => {
      const previous = await server.request('POST', '/v1/responses', {
        previous_response_id: 'resp_nope',
        input: 'hi',
      });
      expect(previous.body.error.message).toBe("Previous response with id 'resp_nope' not found.");
      const reference = await server.request('POST', '/v1/responses', {
        model: 'refund-desk',
        input: [{ type: 'item_reference', id: 'msg_nope' }],
      });
      expect(reference.body.error.message).toBe(
        "input[0] references item 'msg_nope', which does not exist in this app (item ids are the ids of output " +
          'and input items: msg_…, rs_…, fc_…, fco_…, btc_…, btr_…).',
      );
    });
  });

  describe('CES sessions', () => {
    it('other input while responses are owed names the session resource and how to answer', async () => {
      const first = await runSession(server, 'worded', [{ text: 'store' }]);
      const call = first.body.outputs[0].toolCalls.toolCalls[0];
      const refused = await runSession(server, 'worded', [{ text: 'hello?' }]);
      expect(refused.body.error.message).toBe(
        `Session '${APP}/sessions/worded' is waiting for the responses of tool calls ${call.id}. Send them as ` +
          'toolResponses (with the same id, tool and displayName) before other input; you may add text in the ' +
          'same request once every pending call is answered.',
      );
      const noId = await runSession(server, 'worded', [
        { toolResponses: { toolResponses: [{ tool: `${APP}/tools/notify-crm`, response: { output: 'x' } }] } },
      ]);
      expect(noId.body.error.message).toBe(
        'inputs[0].toolResponses.toolResponses[0].id is required: no pending call matches its tool; echo the id ' +
          'of the toolCall.',
      );
    });

    it('an ended session, and a conversation that does not exist', async () => {
      await runSession(server, 'ended', [{ text: 'bye' }]);
      const again = await runSession(server, 'ended', [{ text: 'hello' }]);
      expect(again.body.error.message).toBe(
        `Session '${APP}/sessions/ended' has ended; start a new session id to talk again.`,
      );
      const missing = await server.request('GET', `/v1/${APP}/conversations/nope`);
      expect(missing.body.error.message).toBe(
        `Conversation '${APP}/conversations/nope' was not found; list them with GET /v1/${APP}/conversations.`,
      );
    });
  });
});
