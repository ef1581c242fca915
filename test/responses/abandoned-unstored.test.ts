import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/** `store: false` leftovers of a crash (the process died before purging) are purged by the sweeper. */
describe('Responses API: abandoned store:false conversations', () => {
  let server: TestBaton;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
  beforeAll(async () => {
    server = await startTestBaton({ sweepIntervalMs: 50 }, { clock, sweeper: true });
  });
  afterAll(async () => server.close());

  it('purges a conversation owned by an unstored response once it is older than the WebSocket limit', async () => {
    const created = await server.request('POST', '/v1/responses', { model: 'scripted:auto', input: 'hello' });
    const kept = await server.request('POST', '/v1/responses', { model: 'scripted:auto', input: 'hello again' });
    const record = await server.baton.store.responses.get(server.baton.defaultAppId, created.body.id);
    if (!record) throw new Error('response not stored');
    // What a crash leaves: the unstored response's row and its conversation, never purged.
    await server.baton.store.responses.hide(server.baton.defaultAppId, record.id);
    await server.baton.store.responses.insert({
      ...record,
      id: 'resp_leftover',
      stored: false,
      ownsConversation: true,
    });
    const thread = `/v1/threads/${created.body.baton_run.conversation_id}`;

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await server.request('GET', thread)).status).toBe(200);

    clock.advance(66 * 60);
    const deadline = Date.now() + 5_000;
    while ((await server.request('GET', thread)).status !== 404 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await server.request('GET', thread)).status).toBe(404);
    expect((await server.request('GET', `/v1/responses/${kept.body.id}`)).status).toBe(200);
  });
});
