import { Baton, BatonError } from '@baton/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, SEED, startClientHarness, type ClientHarness } from './client-fixtures.ts';

/** Refusals of every face arrive as BatonErrors with the server's status, code, type and param. */
describe('bad input through the SDK', () => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await startClientHarness();
  });
  afterAll(async () => h.close());

  it('an unknown thread is a 404 thread_not_found, from a call and from a run', async () => {
    const error = await h.baton.threads.get('thread_nope').catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(BatonError);
    expect(error).toMatchObject({
      status: 404,
      code: 'thread_not_found',
      type: 'not_found_error',
      param: null,
      message: "No thread found with id 'thread_nope'.",
    });
    expect((error as BatonError).body).toEqual({ error: expect.objectContaining({ code: 'thread_not_found' }) });
    await expect(h.baton.threads.run('thread_nope', 'hi', { tools: {} })).rejects.toMatchObject({
      status: 404,
      code: 'thread_not_found',
    });
    await expect(h.baton.threads.resume('thread_nope')).rejects.toMatchObject({
      status: 404,
      code: 'thread_not_found',
    });
  });

  it('a wrong key is a 401, an unknown agent a 404 naming the field', async () => {
    const stranger = new Baton({ baseURL: h.server.url, apiKey: 'bk_wrong' });
    await expect(stranger.agents.list()).rejects.toMatchObject({ status: 401, type: 'authentication_error' });
    await expect(h.baton.threads.create({ agent: 'nobody' })).rejects.toMatchObject({
      status: 404,
      code: 'agent_not_found',
      param: 'agent',
    });
  });

  it('results for a call the thread does not have: 400 with the pending ids in details', async () => {
    const threadId = await h.thread('refund-desk');
    const reply = await h.baton.threads.send(threadId, { content: SEED });
    const pendingId = 'choices' in reply ? reply.choices[0]?.message.tool_calls?.[0]?.id : undefined;
    const error = await h.baton.threads
      .submitResults(threadId, [{ type: 'tool_result', tool_call_id: 'call_bogus', content: 'x' }])
      .catch((reason: unknown) => reason);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_tool_call_id',
      param: 'content[0].tool_call_id',
      details: { pending_tool_call_ids: [pendingId] },
    });
    // New input on the paused thread: the raw call is refused, the runner would answer first.
    await expect(h.baton.threads.send(threadId, { content: 'hello?' })).rejects.toMatchObject({
      status: 409,
      code: 'tool_calls_pending',
    });
  });

  it('Responses and CES refusals keep their codes', async () => {
    await expect(h.baton.responses.run({ model: 'no-such-agent', input: 'hi' })).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
      param: 'model',
    });
    await expect(
      h.baton.ces.sessions.run(`${APP.replace('/apps/default', '/apps/missing')}/sessions/s-1`, 'hi'),
    ).rejects.toMatchObject({ status: 404, type: 'NOT_FOUND' });
  });
});
