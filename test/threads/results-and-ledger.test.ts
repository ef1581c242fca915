import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { flakyAgent, invalidAgent, testPrograms, weatherAgent } from '../helpers/test-agents.ts';

describe('results, the ledger and the agent loop', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton({
      scripted: testPrograms,
      agents: [DEMO_AGENT, weatherAgent, invalidAgent, flakyAgent],
      maxModelRetries: 2,
    });
  });
  afterAll(async () => server.close());

  async function start(agent: string, text: string) {
    const thread = await server.request('POST', '/v1/threads', { agent });
    const message = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: text });
    return { threadId: thread.body.id as string, message };
  }

  it('parallel calls answered one at a time through the ledger resume once, with one results message in call order', async () => {
    const { threadId, message } = await start('weather', 'weather in SF and NYC');
    const calls = message.body.choices[0].message.tool_calls as { id: string; input: { city: string } }[];
    expect(calls.map((call) => call.input.city)).toEqual(['SF', 'NYC']);

    const pending = await server.request('GET', `/v1/tool-calls?state=pending&thread_id=${threadId}`);
    expect(pending.body.data.map((entry: { id: string }) => entry.id)).toEqual(calls.map((call) => call.id));

    // The second call answered first: nothing resumes yet.
    const second = await server.request('POST', `/v1/tool-calls/${calls[1]!.id}/result`, { content: 'NYC: 45F' });
    expect(second.status).toBe(200);
    expect(second.body.resumed).toBe(false);
    expect(second.body.tool_call.state).toBe('completed');
    expect((await server.request('GET', `/v1/threads/${threadId}`)).body.status).toBe('pending');

    const first = await server.request('POST', `/v1/tool-calls/${calls[0]!.id}/result`, { content: 'SF: 68F' });
    expect(first.body.resumed).toBe(true);
    expect(first.body.response.choices[0].finish_reason).toBe('stop');

    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data;
    const resultMessages = messages.filter(
      (m: { content: unknown }) =>
        Array.isArray(m.content) && (m.content as { type: string }[])[0]?.type === 'tool_result',
    );
    expect(resultMessages).toHaveLength(1);
    expect(resultMessages[0].content.map((block: { tool_call_id: string }) => block.tool_call_id)).toEqual(
      calls.map((call) => call.id),
    );
    expect((await server.request('GET', `/v1/threads/${threadId}`)).body.status).toBe('idle');
  });

  it('accepts is_error, empty, JSON-string and content-block (text + base64 image) results', async () => {
    const { threadId, message } = await start('weather', 'weather in SF and NYC');
    const [a, b] = message.body.choices[0].message.tool_calls as { id: string }[];
    const image = Buffer.from('fake-jpeg-bytes').toString('base64');
    const response = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [
        {
          type: 'tool_result',
          tool_call_id: a!.id,
          content: [
            { type: 'text', text: 'Here is the map:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: image } },
          ],
        },
        { type: 'tool_result', tool_call_id: b!.id },
      ],
    });
    expect(response.status).toBe(200);
    const entryA = (await server.request('GET', `/v1/tool-calls/${a!.id}`)).body;
    expect(entryA.result.content).toEqual([
      { type: 'text', text: 'Here is the map:' },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: image } },
    ]);
    const entryB = (await server.request('GET', `/v1/tool-calls/${b!.id}`)).body;
    expect(entryB.result).toEqual({ content: [], is_error: false });

    const errorRun = await start('weather', 'weather in SF and NYC');
    const [c, d] = errorRun.message.body.choices[0].message.tool_calls as { id: string }[];
    const failed = await server.request('POST', `/v1/threads/${errorRun.threadId}/messages`, {
      content: [
        { type: 'tool_result', tool_call_id: c!.id, content: '{"temp": 68}' },
        { type: 'tool_result', tool_call_id: d!.id, content: 'weather service down', is_error: true },
      ],
    });
    expect(failed.body.choices[0].message.content).toContain('A tool failed');
    expect((await server.request('GET', `/v1/tool-calls/${d!.id}`)).body.state).toBe('failed');
  });

  it('invalid arguments and unknown tools go back to the model, never to the client', async () => {
    const { threadId, message } = await start('clumsy', 'bad call please');
    expect(message.status).toBe(200);
    expect(message.body.choices[0].finish_reason).toBe('stop');
    expect(message.body.choices[0].message.tool_calls).toBeUndefined();
    expect(message.body.choices[0].message.content).toBe('I could not call the tool correctly.');
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(messages)).not.toContain('town');
    expect((await server.request('GET', `/v1/tool-calls?thread_id=${threadId}`)).body.data).toEqual([]);

    const ghost = await start('clumsy', 'ghost tool');
    expect(ghost.message.body.choices[0].message.content).toBe('I could not call the tool correctly.');
  });

  it('provider errors are retried, then the turn fails with a clear error and the thread is usable', async () => {
    const { threadId, message } = await start('flaky', 'flaky request');
    expect(message.status).toBe(502);
    expect(message.body.error.code).toBe('model_error');
    expect(message.body.error.message).toContain('after 3 attempts');
    expect(message.body.error.message).toContain('upstream overloaded');
    expect(message.body.error.thread_id).toBe(threadId);
    expect((await server.request('GET', `/v1/threads/${threadId}`)).body.status).toBe('idle');
    const next = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'hello again' });
    expect(next.body.choices[0].message.content).toBe('recovered');
  });

  it('new input while calls are pending is refused with the pending ids', async () => {
    const { threadId, message } = await start('refund-desk', 'refund of $20');
    const callId = message.body.choices[0].message.tool_calls[0].id;
    const refused = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'are you there?' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('tool_calls_pending');
    expect(refused.body.error.pending_tool_call_ids).toEqual([callId]);
    expect(refused.body.error.message).toContain(callId);
  });

  it('the queue policy stores new input and applies it after the calls resolve', async () => {
    await server.request('POST', '/v1/agents', { ...DEMO_AGENT, name: 'patient-desk', input_policy: 'queue' });
    const { threadId, message } = await start('patient-desk', 'refund of $20');
    const callId = message.body.choices[0].message.tool_calls[0].id;
    const queued = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: 'also, what is your name?',
    });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({
      object: 'thread.message.queued',
      status: 'queued',
      pending_tool_call_ids: [callId],
    });
    await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [{ type: 'tool_result', tool_call_id: callId, content: 'approved' }],
    });
    await server.baton.engine.idle();
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data;
    const userTexts = messages
      .filter((m: { role: string; content: unknown }) => m.role === 'user' && typeof m.content === 'string')
      .map((m: { content: string }) => m.content);
    expect(userTexts).toEqual(['refund of $20', 'also, what is your name?']);
    expect(messages[messages.length - 2].content).toBe('also, what is your name?');
  });

  it('cancel writes synthetic results for pending calls, so the thread goes on with valid history', async () => {
    const { threadId, message } = await start('weather', 'weather in SF and NYC');
    const ids = (message.body.choices[0].message.tool_calls as { id: string }[]).map((call) => call.id);
    const cancelled = await server.request('POST', `/v1/threads/${threadId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('idle');
    expect(
      cancelled.body.cancelled_tool_calls.map((entry: { id: string; state: string }) => [entry.id, entry.state]),
    ).toEqual(ids.map((id) => [id, 'cancelled']));
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data;
    const results = messages[messages.length - 1];
    expect(
      results.content.map((block: { tool_call_id: string; is_error: boolean; synthetic: boolean }) => [
        block.tool_call_id,
        block.is_error,
        block.synthetic,
      ]),
    ).toEqual(ids.map((id) => [id, true, true]));
    const again = await server.request('POST', `/v1/threads/${threadId}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('thread_not_active');
    const late = await server.request('POST', `/v1/tool-calls/${ids[0]}/result`, { content: 'late' });
    expect(late.status).toBe(409);
    const next = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'weather in SF and NYC' });
    expect(next.body.choices[0].finish_reason).toBe('tool_use');
  });

  it('Idempotency-Key replays the stored response; the same key with another body is refused', async () => {
    const { threadId, message } = await start('refund-desk', 'refund of $20');
    const callId = message.body.choices[0].message.tool_calls[0].id;
    const body = { content: [{ type: 'tool_result', tool_call_id: callId, content: 'approved' }] };
    const first = await server.request('POST', `/v1/threads/${threadId}/messages`, body, {
      'idempotency-key': 'submit-1',
    });
    const replay = await server.request('POST', `/v1/threads/${threadId}/messages`, body, {
      'idempotency-key': 'submit-1',
    });
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const other = await server.request(
      'POST',
      `/v1/threads/${threadId}/messages`,
      { content: 'different' },
      { 'idempotency-key': 'submit-1' },
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    const messages = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body.data;
    expect(messages).toHaveLength(4);
    expect((await server.request('GET', `/v1/tool-calls/${callId}`)).body).toMatchObject({ state: 'completed' });
  });

  it('per-request tools are persisted with the turn and tool_choice must name a known tool', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const lookup = {
      name: 'lookup_order',
      description: 'Looks up an order by id',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    };
    const bad = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'order ORD-12345',
      tool_choice: { type: 'tool', name: 'nope' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('unknown_tool_choice');
    const first = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'where is order ORD-12345?',
      tools: [lookup],
      tool_choice: { type: 'tool', name: 'lookup_order' },
    });
    const call = first.body.choices[0].message.tool_calls[0];
    expect(call).toMatchObject({ name: 'lookup_order', input: { order_id: 'ORD-12345' } });
    // The result message does not repeat the tools: they were stored with the turn.
    const second = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: [{ type: 'tool_result', tool_call_id: call.id, content: 'shipped' }],
    });
    expect(second.status).toBe(200);
    expect(second.body.choices[0].message.content).toContain('shipped');
  });

  it('streams a turn as SSE when stream is true', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const response = await fetch(`${server.url}/v1/threads/${thread.body.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'I need approval to process a $500 refund', stream: true }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => frame.split('\n'));
    const names = events.map((lines) => lines.find((line) => line.startsWith('event: '))?.slice(7) ?? lines[0]);
    expect(names[0]).toBe('turn.started');
    expect(names).toContain('tool_call.created');
    expect(names).toContain('tool_call.delta');
    expect(names[names.length - 2]).toBe('message.completed');
    expect(names[names.length - 1]).toBe('data: [DONE]');
    const completed = JSON.parse(events[events.length - 2]!.find((line) => line.startsWith('data: '))!.slice(6));
    expect(completed.choices[0].finish_reason).toBe('tool_use');
    const deltas = events
      .filter((lines) => lines[0] === 'event: tool_call.delta')
      .map((lines) => JSON.parse(lines[1]!.slice(6)).delta.input)
      .join('');
    expect(JSON.parse(deltas)).toEqual(completed.choices[0].message.tool_calls[0].input);

    // An input error before the turn starts is plain JSON, not a stream.
    const busy = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'more',
      stream: true,
    });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('tool_calls_pending');
  });

  it('agents CRUD: versions, and a paused turn keeps the version it started with', async () => {
    const created = await server.request('POST', '/v1/agents', { ...DEMO_AGENT, name: 'versioned' });
    expect(created.status).toBe(201);
    expect(created.body.version).toBe(1);
    const duplicate = await server.request('POST', '/v1/agents', { ...DEMO_AGENT, name: 'versioned' });
    expect(duplicate.status).toBe(409);
    const { threadId, message } = await start('versioned', 'refund of $30');
    const callId = message.body.choices[0].message.tool_calls[0].id;
    const updated = await server.request('PUT', '/v1/agents/versioned', {
      model: 'scripted:auto',
      tools: [],
      instructions: 'no tools now',
    });
    expect(updated.body.version).toBe(2);
    const stale = await server.request('PUT', '/v1/agents/versioned', { model: 'scripted:auto', expected_version: 1 });
    expect(stale.status).toBe(409);
    const resumed = await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: [{ type: 'tool_result', tool_call_id: callId, content: 'ok' }],
    });
    expect(resumed.status).toBe(200);
    const badModel = await server.request('POST', '/v1/agents', { name: 'nowhere', model: 'nowhere:model' });
    expect(badModel.status).toBe(400);
    expect(badModel.body.error.message).toContain('nowhere');
    const list = await server.request('GET', '/v1/agents?limit=2');
    expect(list.body.data).toHaveLength(2);
    expect(list.body.has_more).toBe(true);
    expect((await server.request('DELETE', '/v1/agents/versioned')).status).toBe(200);
    expect((await server.request('GET', '/v1/agents/versioned')).status).toBe(404);
  });

  it('pages messages whole, in order, with a cursor chain that ends', async () => {
    const { threadId } = await start('weather', 'weather in SF and NYC');
    const ids = (await server.request('GET', `/v1/tool-calls?thread_id=${threadId}&state=pending`)).body.data.map(
      (entry: { id: string }) => entry.id,
    );
    await server.request('POST', `/v1/threads/${threadId}/messages`, {
      content: ids.map((id: string) => ({ type: 'tool_result', tool_call_id: id, content: 'sunny' })),
    });
    const all = (await server.request('GET', `/v1/threads/${threadId}/messages`)).body;
    expect(all.has_more).toBe(false);
    expect(all.data).toHaveLength(4);
    const paged: { id: string; tool_calls?: unknown[]; content: unknown }[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const query: string = after ? `?limit=1&after=${after}` : '?limit=1';
      const response = (await server.request('GET', `/v1/threads/${threadId}/messages${query}`)).body;
      expect(response.data).toHaveLength(1);
      paged.push(...response.data);
      after = response.next_cursor;
      if (!response.has_more) break;
    }
    expect(after).toBeNull();
    // Each message arrives whole: the assistant message keeps both of its parallel calls.
    expect(paged).toEqual(all.data);
    expect(paged[1]!.tool_calls).toHaveLength(2);
    expect((paged[2]!.content as unknown[]).length).toBe(2);
    const bad = await server.request('GET', `/v1/threads/${threadId}/messages?after=nonsense`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_cursor');
  });
});
