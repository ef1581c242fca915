import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS } from '../../src/engine/index.ts';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { getWeather } from '../helpers/responses-lifecycle-fixtures.ts';
import { ManualClock, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { runOf, startDesk, type DeskBaton } from './server-call-fixtures.ts';

/**
 * Calls left unanswered by stateless Responses clients: a call the client answers, made in a
 * Responses conversation, gets a deadline when neither its tool nor its agent gives one
 * (`responses.tool_timeout_seconds`, one day by default), so an abandoned chain stops waiting in
 * the ledger and the console's inbox; the agent's timeout_policy applies then. A `store: false`
 * response that paused in a stored chain is cancelled at once: nobody can continue it.
 */

const T0 = new Date('2026-05-01T08:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000).toISOString();
const WEATHER = 'What is the weather in Paris?';

interface Started {
  server: TestBaton;
  client: OpenAI;
  clock: ManualClock;
}

async function start(responsesToolTimeoutSeconds?: number | null): Promise<Started> {
  const clock = new ManualClock(T0);
  const server = await startTestBaton(
    {
      ...(responsesToolTimeoutSeconds === undefined ? {} : { responsesToolTimeoutSeconds }),
      agents: [
        DEMO_AGENT,
        { name: 'patient', model: 'scripted:auto', tool_timeout_seconds: 600 },
        { name: 'canceller', model: 'scripted:auto', timeout_policy: 'cancel' },
        {
          name: 'per-tool',
          model: 'scripted:auto',
          tools: [{ name: 'get_weather', parameters: getWeather.parameters, timeout_seconds: 30 }],
        },
      ],
    },
    { clock },
  );
  return { server, clock, client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 }) };
}

async function pausedCall(started: Started, model: string, tools = [getWeather]) {
  const response = await started.client.responses.create({ model, input: WEATHER, ...(tools.length ? { tools } : {}) });
  const callId = runOf(response)['pending_tool_call_ids'][0] as string;
  const entry = (await started.server.request('GET', `/v1/tool-calls/${callId}`)).body;
  return { response, callId, entry };
}

describe('Responses API: the deadline of calls a stateless client leaves unanswered', () => {
  describe('by default', () => {
    let started: Started;
    beforeAll(async () => {
      started = await start();
    });
    afterAll(async () => started?.server.close());

    it('a call of a Responses conversation gets a one-day deadline, then the agent’s policy (error_result) applies', async () => {
      expect(DEFAULT_RESPONSES_TOOL_TIMEOUT_SECONDS).toBe(86_400);
      const { response, callId, entry } = await pausedCall(started, 'scripted:auto');
      expect(entry).toMatchObject({ state: 'pending', deadline_at: at(86_400), timeout_policy: 'error_result' });

      started.clock.advance(86_399);
      expect(await started.server.baton.engine.applyDueDeadlines()).toBe(0);
      started.clock.advance(2);
      expect(await started.server.baton.engine.applyDueDeadlines()).toBe(1);
      await started.server.baton.engine.idle();

      expect((await started.server.request('GET', `/v1/tool-calls/${callId}`)).body).toMatchObject({
        state: 'expired',
        submitted_by: 'baton:deadline',
      });
      const after = await started.client.responses.retrieve(response.id);
      expect(after.status).toBe('completed');
      expect(runOf(after)['status']).toBe('completed');
      expect(after.output_text).toContain('error');
      expect((await started.server.request('GET', '/v1/tool-calls?state=pending')).body.data).toEqual([]);
    });

    it('the tool’s timeout_seconds and the agent’s tool_timeout_seconds come first', async () => {
      expect((await pausedCall(started, 'patient')).entry.deadline_at).toBe(at(86_401 + 600));
      expect((await pausedCall(started, 'per-tool', [])).entry.deadline_at).toBe(at(86_401 + 30));
    });

    it('with timeout_policy cancel, the abandoned turn is cancelled without asking the model again', async () => {
      const { response, callId } = await pausedCall(started, 'canceller');
      started.clock.advance(86_401);
      await started.server.baton.engine.applyDueDeadlines();
      await started.server.baton.engine.idle();
      expect((await started.server.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('expired');
      expect((await started.client.responses.retrieve(response.id)).status).toBe('cancelled');
    });

    it('Threads conversations are not Responses ones: their calls keep the agent’s deadline (none here)', async () => {
      const thread = (await started.server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body;
      const message = await started.server.request('POST', `/v1/threads/${thread.id}/messages`, {
        role: 'user',
        content: 'I need approval to process a $500 refund',
      });
      const callId = message.body.choices[0].message.tool_calls[0].id;
      expect((await started.server.request('GET', `/v1/tool-calls/${callId}`)).body.deadline_at).toBeNull();
    });

    it('a store: false response that paused in a stored chain is cancelled at once, and the chain goes on', async () => {
      const stored = await started.client.responses.create({ model: 'scripted:auto', input: 'Hello!' });
      const unstored = await started.client.responses.create({
        previous_response_id: stored.id,
        input: WEATHER,
        tools: [getWeather],
        store: false,
      });
      const callId = runOf(unstored)['pending_tool_call_ids'][0] as string;
      expect((await started.server.request('GET', `/v1/tool-calls/${callId}`)).body.state).toBe('cancelled');
      const next = await started.client.responses.create({ previous_response_id: stored.id, input: 'Still there?' });
      expect(next.status).toBe('completed');
    });
  });

  it('responses.tool_timeout_seconds sets it; null turns it off', async () => {
    const short = await start(60);
    try {
      expect((await pausedCall(short, 'scripted:auto')).entry.deadline_at).toBe(at(60));
    } finally {
      await short.server.close();
    }
    const none = await start(null);
    try {
      expect((await pausedCall(none, 'scripted:auto')).entry.deadline_at).toBeNull();
    } finally {
      await none.server.close();
    }
  });

  describe('approvals', () => {
    let desk: DeskBaton;
    beforeAll(async () => {
      desk = await startDesk();
    });
    afterAll(async () => desk?.server.close());

    it('a person decides an approval: it gets no fallback deadline', async () => {
      const response = await desk.client.responses.create({ model: 'desk', input: 'refund me' });
      const approvalId = runOf(response)['pending_approval_ids'][0] as string;
      expect((await desk.server.request('GET', `/v1/tool-calls/${approvalId}`)).body).toMatchObject({
        kind: 'approval',
        deadline_at: null,
      });
    });
  });
});
