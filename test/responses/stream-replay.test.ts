import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStream, parseSse } from '../helpers/open-responses-contract.ts';
import { getWeather } from '../helpers/responses-lifecycle-fixtures.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { startOpenAIResponsesFake, type OpenAIResponsesFake } from '../models/fakes/openai-responses-fake.ts';
import type { ModelScript } from '../models/fakes/provider-fake.ts';
import { collect, startDesk, type DeskBaton, type Item } from './server-call-fixtures.ts';

/**
 * `GET /v1/responses/{id}?stream=true[&starting_after=N]` streams a stored response's events
 * again, as OpenAI does for background responses: the same events, with the same sequence
 * numbers, that the streamed create sent, from after `starting_after`; a response still running
 * is followed until it finishes.
 */

/** Words, and one longer than a delta's 32 characters, so the text streams in many pieces. */
const STORY =
  'Once upon a time a slow turn ran, and a word longer than thirty-two characters came: ' +
  'Pneumonoultramicroscopicsilicovolcanoconiosis.';

/**
 * Its first model call fails with a 503 asking for a second, so a background response runs that
 * long. A fail rule counts per model, so each test that needs a running response has its own.
 */
const slowProgram = {
  rules: [{ fail: { status: 503, message: 'warming up', times: 1, retry_after_ms: 1_000 } }, { say: STORY }],
};

describe('Responses API: streaming a stored response again', () => {
  let server: TestBaton;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startTestBaton({
      maxModelRetries: 1,
      scripted: { story: { rules: [{ say: STORY }] }, slow1: slowProgram, slow2: slowProgram },
    });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
  });
  afterAll(async () => server?.close());

  /** A streamed create, as the `openai` client reads it. */
  const liveStream = async (body: Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'stream'>) =>
    collect(await client.responses.create({ ...body, stream: true }));
  const replay = async (id: string, startingAfter?: number) =>
    collect(
      await client.responses.retrieve(id, {
        stream: true,
        ...(startingAfter === undefined ? {} : { starting_after: startingAfter }),
      }),
    );
  const idOf = (events: Item[]): string => (events[0]?.['response'] as { id: string }).id;

  it('replays a text answer with the events and sequence numbers of its live stream', async () => {
    const live = await liveStream({ model: 'scripted:story', input: 'Tell me a story.' });
    expect(live.filter((event) => event['type'] === 'response.output_text.delta').length).toBeGreaterThan(3);
    const again = await replay(idOf(live));
    expect(checkStream(again)).toEqual([]);
    expect(again).toEqual(live);
  });

  it('replays function calls (one, then two in parallel) and the answer after their outputs', async () => {
    const one = await liveStream({
      model: 'scripted:auto',
      input: 'What is the weather in Paris?',
      tools: [getWeather],
    });
    expect(await replay(idOf(one))).toEqual(one);
    const two = await liveStream({
      model: 'scripted:auto',
      input: 'What is the weather in Paris and what is the weather in Tokyo?',
      tools: [getWeather],
    });
    expect(two.filter((event) => event['type'] === 'response.function_call_arguments.done')).toHaveLength(2);
    expect(await replay(idOf(two))).toEqual(two);
    const calls = (await client.responses.retrieve(idOf(two))).output.flatMap((item) =>
      item.type === 'function_call' ? [item.call_id] : [],
    );
    const answer = await liveStream({
      model: 'scripted:auto',
      previous_response_id: idOf(two),
      input: calls.map((call_id) => ({ type: 'function_call_output' as const, call_id, output: '{"temperature":20}' })),
    });
    expect(await replay(idOf(answer))).toEqual(answer);
  });

  it('starting_after N sends the events numbered after N, as the live stream numbered them', async () => {
    const live = await liveStream({ model: 'scripted:story', input: 'Another story, please.' });
    for (const after of [0, 1, 4, live.length - 2]) {
      const rest = await replay(idOf(live), after);
      expect(rest).toEqual(live.slice(after + 1));
    }
    // After the terminal event there is nothing left: an empty stream, not an error.
    expect(await replay(idOf(live), live.length - 1)).toEqual([]);
  });

  it('raw SSE: one frame per event (event name = type), then data: [DONE]', async () => {
    const created = await client.responses.create({ model: 'scripted:auto', input: 'Hello there.' });
    const response = await fetch(`${server.url}/v1/responses/${created.id}?stream=true&starting_after=1`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const frames = parseSse(await response.text());
    expect(frames[frames.length - 1]?.data).toBe('[DONE]');
    const events = frames.slice(0, -1).map((frame) => ({ name: frame.event, ...JSON.parse(frame.data) }));
    expect(events[0]).toMatchObject({ name: 'response.output_item.added', sequence_number: 2 });
    for (const event of events) expect(event.name).toBe(event.type);
    expect(events[events.length - 1]).toMatchObject({ type: 'response.completed', response: { id: created.id } });
  });

  it('follows a background response still running: what exists at once, the rest as it commits', async () => {
    const created = await client.responses.create({ model: 'scripted:slow1', input: 'slow please', background: true });
    expect(created.status).toBe('in_progress');
    const started = Date.now();
    const stream = await client.responses.retrieve(created.id, { stream: true });
    const events: Item[] = [];
    const arrivals: number[] = [];
    for await (const event of stream) {
      events.push(event as Item);
      arrivals.push(Date.now() - started);
    }
    expect(checkStream(events)).toEqual([]);
    expect(events[0]).toMatchObject({ type: 'response.created', response: { status: 'in_progress' } });
    expect(events[events.length - 1]).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
    // The first events came at once, the rest once the model answered (after its one-second wait).
    expect(arrivals[0]).toBeLessThan((arrivals[arrivals.length - 1] ?? 0) - 300);
    expect(await replay(created.id)).toEqual(events);
    const text = events
      .filter((event) => event['type'] === 'response.output_text.delta')
      .map((event) => event['delta']);
    expect(text.join('')).toBe(STORY);
  });

  it('a follower that joins with a starting_after past the running response’s events waits for them', async () => {
    const created = await client.responses.create({ model: 'scripted:slow2', input: 'slow please', background: true });
    expect(created.status).toBe('in_progress');
    // Only response.created and response.in_progress exist yet (0 and 1).
    const tail = await replay(created.id, 5);
    expect(tail[0]?.['sequence_number']).toBe(6);
    expect(tail[tail.length - 1]?.['type']).toBe('response.completed');
    expect(await replay(created.id)).toEqual([...(await replay(created.id)).slice(0, 6), ...tail]);
  });

  it('errors in the OpenAI format: unknown id, bad or past starting_after, starting_after without stream', async () => {
    await expect(client.responses.retrieve('resp_missing', { stream: true })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const created = await client.responses.create({ model: 'scripted:auto', input: 'Hello there.' });
    const events = await replay(created.id);
    const bad = [
      ['stream=true&starting_after=abc', 'invalid_request', 'starting_after'],
      ['stream=true&starting_after=-1', 'invalid_request', 'starting_after'],
      ['stream=true&starting_after=1.5', 'invalid_request', 'starting_after'],
      ['stream=true&starting_after=1&starting_after=2', 'invalid_request', 'starting_after'],
      [`stream=true&starting_after=${events.length}`, 'invalid_starting_after', 'starting_after'],
      ['starting_after=2', 'invalid_request', 'starting_after'],
      ['stream=yes', 'invalid_request', 'stream'],
    ] as const;
    for (const [query, code, param] of bad) {
      const refused = await server.request('GET', `/v1/responses/${created.id}?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error, query).toMatchObject({ type: 'invalid_request_error', code, param });
    }
    await expect(
      client.responses.retrieve(created.id, { stream: true, starting_after: events.length + 10 }),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_starting_after' });
    // stream=false is a plain GET.
    expect((await server.request('GET', `/v1/responses/${created.id}?stream=false`)).body.id).toBe(created.id);
  });

  it('on /nodexa/v1 the replayed response.completed says requires_action', async () => {
    const paused = await client.responses.create({
      model: 'scripted:auto',
      input: 'Weather in Paris?',
      tools: [getWeather],
    });
    const nodexa = new OpenAI({ baseURL: `${server.url}/nodexa/v1`, apiKey: server.key, maxRetries: 0 });
    const events = await collect(await nodexa.responses.retrieve(paused.id, { stream: true }));
    expect(events[events.length - 1]).toMatchObject({
      type: 'response.completed',
      response: { status: 'requires_action' },
    });
  });
});

describe('Responses API: streaming again responses with server calls and with reasoning', () => {
  let desk: DeskBaton;
  let fake: OpenAIResponsesFake;
  let reasoning: TestBaton;
  const script: ModelScript = (view) =>
    view.toolResults.length > 0
      ? { reasoning: 'The weather is in, so now I can answer the question.', text: 'It is sunny in Paris today.' }
      : { reasoning: 'I need the weather first.', calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };

  beforeAll(async () => {
    desk = await startDesk();
    fake = await startOpenAIResponsesFake(script);
    reasoning = await startTestBaton({
      providers: { openai: { baseURL: fake.baseURL, apiKey: 'k' } },
      agents: [
        {
          name: 'thinker',
          model: 'openai:gpt-5-mini',
          tools: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
          provider_options: { openai: { reasoningSummary: 'auto' } },
        },
      ],
    });
  });
  afterAll(async () => {
    await desk?.server.close();
    await reasoning?.close();
    await fake?.close();
  });

  it('a step mixing client calls and a server call, with the server result, replays as it streamed', async () => {
    const live = await collect(await desk.client.responses.create({ model: 'desk', input: 'mixed', stream: true }));
    const id = (live[0]?.['response'] as { id: string }).id;
    expect(await collect(await desk.client.responses.retrieve(id, { stream: true }))).toEqual(live);
  });

  it('reasoning summaries replay interleaved with the text as they streamed', async () => {
    const client = new OpenAI({ baseURL: `${reasoning.url}/v1`, apiKey: reasoning.key, maxRetries: 0 });
    const first = await collect(await client.responses.create({ model: 'thinker', input: 'weather?', stream: true }));
    const firstId = (first[0]?.['response'] as { id: string }).id;
    expect(await collect(await client.responses.retrieve(firstId, { stream: true }))).toEqual(first);
    const call = (await client.responses.retrieve(firstId)).output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    const second = await collect(
      await client.responses.create({
        model: 'thinker',
        previous_response_id: firstId,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
        stream: true,
      }),
    );
    expect(second.map((event) => event['type'])).toContain('response.reasoning_summary_text.delta');
    const secondId = (second[0]?.['response'] as { id: string }).id;
    expect(await collect(await client.responses.retrieve(secondId, { stream: true }))).toEqual(second);
  });
});
