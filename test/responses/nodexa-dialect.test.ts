import OpenAI from 'openai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/server/config.ts';
import { checkResponse, checkStream } from '../helpers/open-responses-contract.ts';
import { getWeather } from '../helpers/responses-lifecycle-fixtures.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { collect, itemsOf, runOf, startDesk, type DeskBaton, type Item } from './server-call-fixtures.ts';

/**
 * The Nodexa dialect of the Responses face: `/nodexa/v1/responses…` answers a response waiting
 * for function_call outputs with `status: "requires_action"` (JSON, GET, the streamed
 * `response.completed`, WebSocket); everything else is `/v1`'s. `/v1` keeps OpenAI's `completed`,
 * unless the agent says `paused_response_status: requires_action`.
 */

const WEATHER = 'What is the weather in Paris?';

describe('Responses API: the Nodexa dialect', () => {
  let server: TestBaton;
  let nodexa: OpenAI;
  let openai: OpenAI;
  beforeAll(async () => {
    server = await startTestBaton({
      agents: [
        { name: 'assistant', model: 'scripted:auto', tools: [] },
        { name: 'nodexa-style', model: 'scripted:auto', paused_response_status: 'requires_action' },
      ],
    });
    nodexa = new OpenAI({ baseURL: `${server.url}/nodexa/v1`, apiKey: server.key, maxRetries: 0 });
    openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
  });
  afterAll(async () => server?.close());

  const callOf = (response: OpenAI.Responses.Response) => {
    const call = response.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call item');
    return call;
  };

  it('a paused response is requires_action on create and on GET, then completed once answered', async () => {
    const paused = await nodexa.responses.create({ model: 'assistant', input: WEATHER, tools: [getWeather] });
    expect(paused.status as string).toBe('requires_action');
    expect(checkResponse(paused)).toEqual([]);
    expect(runOf(paused)).toMatchObject({ status: 'requires_action', pending_tool_call_ids: [callOf(paused).call_id] });
    expect((await nodexa.responses.retrieve(paused.id)).status as string).toBe('requires_action');
    // The same response read on /v1 speaks OpenAI's dialect.
    expect((await openai.responses.retrieve(paused.id)).status).toBe('completed');

    const answered = await nodexa.responses.create({
      model: 'assistant',
      previous_response_id: paused.id,
      input: [{ type: 'function_call_output', call_id: callOf(paused).call_id, output: '{"temperature":18}' }],
    });
    expect(answered.status).toBe('completed');
    expect(answered.output_text).toContain('temperature: 18');
    // Continued: it waits for nothing any more.
    expect((await nodexa.responses.retrieve(paused.id)).status).toBe('completed');
  });

  it('the streamed response.completed carries requires_action; the events are /v1’s', async () => {
    const events = await collect(
      await nodexa.responses.create({ model: 'assistant', input: WEATHER, tools: [getWeather], stream: true }),
    );
    // The one difference the Open Responses contract flags is the point of the dialect.
    expect(checkStream(events)).toEqual(['event #6 (response.completed): response.status is requires_action']);
    const completed = events.find((event) => event['type'] === 'response.completed');
    expect(completed?.['response']).toMatchObject({ status: 'requires_action' });
    const onV1 = await collect(
      await openai.responses.create({ model: 'assistant', input: WEATHER, tools: [getWeather], stream: true }),
    );
    expect(events.map((event) => event['type'])).toEqual(onV1.map((event) => event['type']));
    expect(onV1.find((event) => event['type'] === 'response.completed')?.['response']).toMatchObject({
      status: 'completed',
    });
  });

  it('/v1 says requires_action for an agent with paused_response_status: requires_action, and only for it', async () => {
    const v1 = await openai.responses.create({ model: 'nodexa-style', input: WEATHER, tools: [getWeather] });
    expect(v1.status as string).toBe('requires_action');
    expect((await openai.responses.retrieve(v1.id)).status as string).toBe('requires_action');
    const plain = await openai.responses.create({ model: 'assistant', input: WEATHER, tools: [getWeather] });
    expect(plain.status).toBe('completed');
    // A text answer is completed in both dialects.
    const text = await nodexa.responses.create({ model: 'nodexa-style', input: 'Hello!' });
    expect(text.status).toBe('completed');
  });

  it('the other routes answer under /nodexa/v1 as under /v1: input_items, cancel, delete, compact', async () => {
    const paused = await nodexa.responses.create({ model: 'assistant', input: WEATHER, tools: [getWeather] });
    const items = await nodexa.responses.inputItems.list(paused.id);
    expect(items.data).toHaveLength(1);
    const cancelled = await nodexa.responses.cancel(paused.id);
    expect(cancelled.status).toBe('cancelled');
    await nodexa.responses.delete(paused.id);
    await expect(nodexa.responses.retrieve(paused.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const compacted = await nodexa.responses.compact({ model: 'assistant', input: 'Keep this.' });
    expect(compacted.object).toBe('response.compaction');
  });

  it('errors under /nodexa/v1 are in the OpenAI format', async () => {
    const missing = await server.request('GET', '/nodexa/v1/responses/resp_missing');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', code: 'response_not_found' });
    const route = await server.request('GET', '/nodexa/v1/models');
    expect(route.status).toBe(404);
    expect(route.body.error).toMatchObject({ code: 'route_not_found', param: null });
    const anonymous = await server.request(
      'POST',
      '/nodexa/v1/responses',
      { model: 'assistant', input: 'hi' },
      {
        authorization: '',
      },
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toMatchObject({ code: 'missing_api_key' });
  });

  it('WebSocket mode on /nodexa/v1/responses ends a paused turn with requires_action', async () => {
    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/nodexa/v1/responses`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const terminal = new Promise<Item>((resolve) =>
      ws.on('message', (data) => {
        const event = JSON.parse(String(data)) as Item;
        if (event['type'] === 'response.completed') resolve(event);
      }),
    );
    ws.send(JSON.stringify({ type: 'response.create', model: 'assistant', input: WEATHER, tools: [getWeather] }));
    expect((await terminal)['response']).toMatchObject({ status: 'requires_action' });
    ws.close();
  });

  it('the agents API shows and checks paused_response_status; baton.yaml is checked when read', async () => {
    const shown = await server.request('GET', '/v1/agents/nodexa-style');
    expect(shown.body.paused_response_status).toBe('requires_action');
    expect((await server.request('GET', '/v1/agents/assistant')).body.paused_response_status).toBe('completed');
    const bad = await server.request('POST', '/v1/agents', {
      name: 'wrong',
      model: 'scripted:auto',
      paused_response_status: 'waiting',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('paused_response_status');
    const updated = await server.request('PUT', '/v1/agents/assistant', {
      model: 'scripted:auto',
      paused_response_status: 'requires_action',
    });
    expect(updated.body.paused_response_status).toBe('requires_action');
    const paused = await openai.responses.create({ model: 'assistant', input: WEATHER, tools: [getWeather] });
    expect(paused.status as string).toBe('requires_action');
    await server.request('PUT', '/v1/agents/assistant', { model: 'scripted:auto' });

    const dir = mkdtempSync(join(tmpdir(), 'baton-nodexa-'));
    writeFileSync(
      join(dir, 'baton.yaml'),
      'agents:\n  - name: a\n    model: scripted:auto\n    paused_response_status: requires_action\n',
    );
    expect(loadConfig({}, dir).agents[0]?.paused_response_status).toBe('requires_action');
    writeFileSync(
      join(dir, 'baton.yaml'),
      'agents:\n  - name: a\n    model: scripted:auto\n    paused_response_status: yes\n',
    );
    expect(() => loadConfig({}, dir)).toThrow(/agents\[0\]\.paused_response_status/);
  });
});

describe('Responses API: the Nodexa dialect with approvals', () => {
  let desk: DeskBaton;
  beforeAll(async () => {
    desk = await startDesk();
  });
  afterAll(async () => desk?.server.close());

  it('a turn waiting only for a person’s approval is not requires_action: the client has nothing to send', async () => {
    const response = await desk.server.request('POST', '/nodexa/v1/responses', { model: 'desk', input: 'refund me' });
    expect(response.status).toBe(200);
    expect(itemsOf(response.body)[0]).toMatchObject({ type: 'baton:tool_call', approval: { status: 'pending' } });
    expect(response.body.status).toBe('completed');
    expect(runOf(response.body)).toMatchObject({ status: 'requires_action', pending_tool_call_ids: [] });
  });
});
