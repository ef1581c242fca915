import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { DEMO_AGENT } from '../../../src/server/config.ts';
import { flakyAgent, testPrograms } from '../../helpers/test-agents.ts';
import { APP, seedStoreAgent, sessionPrograms } from '../ces/sessions/session-fixtures.ts';

/** A raw POST whose body is read whole (a stream is read to its end). */
async function post(server: TestBaton, path: string, body: unknown, key: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    replayed: response.headers.get('idempotent-replayed'),
    text: await response.text(),
  };
}

/**
 * Streams settle their Idempotency-Key in one place (faces/kit/streamed-reply.ts): a finished
 * stream is replayed as one JSON body, a request refused before it streamed is replayed as the
 * same error, and a turn that failed while streaming is replayed as the error a plain request gets.
 */
describe('streamed replies and Idempotency-Key, on every streaming face', () => {
  let server: TestBaton;

  beforeAll(async () => {
    server = await startTestBaton({
      scripted: { ...testPrograms, ...sessionPrograms },
      agents: [DEMO_AGENT, flakyAgent],
    });
    await seedStoreAgent(server);
  });
  afterAll(async () => server?.close());

  it('Threads: a finished stream is replayed as its message.completed body', async () => {
    const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id;
    const body = { role: 'user', content: 'I need approval to process a $500 refund', stream: true };
    const first = await post(server, `/v1/threads/${thread}/messages`, body, 'threads-stream-1');
    expect(first.type).toContain('text/event-stream');
    const completed = /event: message\.completed\ndata: (.+)\n/.exec(first.text)?.[1];
    expect(completed).toBeDefined();
    const again = await post(server, `/v1/threads/${thread}/messages`, body, 'threads-stream-1');
    expect(again).toMatchObject({ status: 200, replayed: 'true' });
    expect(JSON.parse(again.text)).toEqual(JSON.parse(completed ?? 'null'));
  });

  it('Threads: a stream refused before it started is replayed as the same error', async () => {
    const thread = (await server.request('POST', '/v1/threads', { agent: 'refund-desk' })).body.id;
    await server.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'refund $5' });
    const body = { role: 'user', content: 'again', stream: true };
    const first = await post(server, `/v1/threads/${thread}/messages`, body, 'threads-stream-2');
    expect(first.status).toBe(409);
    expect(first.type).toContain('application/json');
    const again = await post(server, `/v1/threads/${thread}/messages`, body, 'threads-stream-2');
    expect(again).toMatchObject({ status: 409, replayed: 'true' });
    expect(JSON.parse(again.text).error.code).toBe('tool_calls_pending');
  });

  it('Threads: a turn that failed while streaming is replayed as the 502 a plain request gets', async () => {
    const thread = (await server.request('POST', '/v1/threads', { agent: 'flaky' })).body.id;
    const body = { role: 'user', content: 'flaky', stream: true };
    const first = await post(server, `/v1/threads/${thread}/messages`, body, 'threads-stream-3');
    expect(first.text).toContain('event: error');
    const again = await post(server, `/v1/threads/${thread}/messages`, body, 'threads-stream-3');
    expect(again).toMatchObject({ status: 502, replayed: 'true' });
    expect(JSON.parse(again.text).error.code).toBe('model_error');
  });

  it('Responses: a finished stream is replayed as the response', async () => {
    const body = { model: 'refund-desk', input: 'I need approval to process a $500 refund', stream: true };
    const first = await post(server, '/v1/responses', body, 'responses-stream-1');
    expect(first.type).toContain('text/event-stream');
    const completed = /event: response\.completed\ndata: (.+)\n/.exec(first.text)?.[1];
    const again = await post(server, '/v1/responses', body, 'responses-stream-1');
    expect(again).toMatchObject({ status: 200, replayed: 'true' });
    expect(JSON.parse(again.text)).toEqual(JSON.parse(completed ?? 'null').response);
  });

  it('CES: a finished streamRunSession is replayed as the whole run in one JSON body', async () => {
    const body = { config: { session: `${APP}/sessions/streamed` }, inputs: [{ text: 'store' }] };
    const path = `/v1/${APP}/sessions/streamed:streamRunSession`;
    const first = await post(server, path, body, 'ces-stream-1');
    expect(first.type).toContain('text/event-stream');
    const frames = [...first.text.matchAll(/data: (.+)\n/g)].map((match) => JSON.parse(match[1] ?? 'null'));
    const again = await post(server, path, body, 'ces-stream-1');
    expect(again).toMatchObject({ status: 200, replayed: 'true' });
    expect(JSON.parse(again.text).outputs).toEqual(frames.flatMap((frame) => frame.outputs));
  });
});
