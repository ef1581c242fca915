import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, agentWith, startTestBaton, type TestBaton } from '../helpers/test-baton.ts';
import { SseStream } from '../helpers/sse-stream.ts';

const auth = { authorization: `Bearer ${ADMIN_KEY}` };

async function pendingCall(baton: TestBaton, agent = 'refund-desk'): Promise<{ threadId: string; callId: string }> {
  const thread = await baton.request('POST', '/v1/threads', { agent });
  const reply = await baton.request('POST', `/v1/threads/${thread.body.id}/messages`, {
    role: 'user',
    content: 'I need a refund of 500',
  });
  expect(reply.body.choices[0].finish_reason).toBe('tool_use');
  return { threadId: thread.body.id, callId: reply.body.choices[0].message.tool_calls[0].id };
}

describe('GET /v1/tool-calls/events', () => {
  let baton: TestBaton;
  const dir = mkdtempSync(join(tmpdir(), 'baton-events-'));
  const filename = join(dir, 'baton.db');

  beforeAll(async () => {
    baton = await startTestBaton(
      { agents: [agentWith({}), agentWith({ name: 'discount-desk' })] },
      { store: { kind: 'sqlite', filename } },
    );
  });
  afterAll(async () => {
    await baton.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a pending call as tool_call.created and its answer as tool_call.resolved, live', async () => {
    const stream = await SseStream.open(`${baton.url}/v1/tool-calls/events`, auth);
    try {
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await stream.next((event) => event.event === 'ready');
      const { threadId, callId } = await pendingCall(baton);
      const created = await stream.next((event) => event.event === 'tool_call.created' && event.data.id === callId);
      expect(created.data).toMatchObject({
        object: 'tool_call',
        state: 'pending',
        thread_id: threadId,
        name: 'request_approval',
        agent: 'refund-desk',
      });
      expect(created.id).toBe(`${created.data.updated_at}|${callId}`);

      await baton.request('POST', `/v1/tool-calls/${callId}/result`, {
        content: '{"approved":true,"approved_by":"m@x.com"}',
      });
      const resolved = await stream.next((event) => event.event === 'tool_call.resolved' && event.data.id === callId);
      expect(resolved.data).toMatchObject({ state: 'completed', result: { is_error: false } });
      // Each change is sent once, however many polls see it.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(stream.events.filter((event) => event.data.id === callId)).toHaveLength(2);
    } finally {
      stream.close();
    }
  });

  it('filters by agent and tool', async () => {
    const refunds = await SseStream.open(`${baton.url}/v1/tool-calls/events?agent=refund-desk`, auth);
    const otherTool = await SseStream.open(`${baton.url}/v1/tool-calls/events?tool=some_other_tool`, auth);
    try {
      await refunds.next((event) => event.event === 'ready');
      const discount = await pendingCall(baton, 'discount-desk');
      const refund = await pendingCall(baton, 'refund-desk');
      await refunds.next((event) => event.data.id === refund.callId);
      expect(refunds.events.some((event) => event.data.id === discount.callId)).toBe(false);
      expect(otherTool.events.filter((event) => event.event.startsWith('tool_call.'))).toEqual([]);
    } finally {
      refunds.close();
      otherTool.close();
    }
  });

  it('replays what a reconnecting client missed after its Last-Event-ID', async () => {
    const first = await SseStream.open(`${baton.url}/v1/tool-calls/events`, auth);
    const { callId } = await pendingCall(baton);
    const seen = await first.next((event) => event.data.id === callId);
    first.close();
    // While disconnected: the call is answered, and another one starts waiting.
    await baton.request('POST', `/v1/tool-calls/${callId}/result`, { content: 'approved' });
    const later = await pendingCall(baton);

    const second = await SseStream.open(`${baton.url}/v1/tool-calls/events`, {
      ...auth,
      'last-event-id': seen.id ?? '',
    });
    try {
      await second.next((event) => event.event === 'tool_call.resolved' && event.data.id === callId);
      await second.next((event) => event.event === 'tool_call.created' && event.data.id === later.callId);
      expect(second.events.some((event) => event.event === 'tool_call.created' && event.data.id === callId)).toBe(
        false,
      );
    } finally {
      second.close();
    }
  });

  it('sees calls made by another Baton process on the same database', async () => {
    const other = await startTestBaton({ agents: [] }, { store: { kind: 'sqlite', filename } });
    const stream = await SseStream.open(`${baton.url}/v1/tool-calls/events`, auth);
    try {
      await stream.next((event) => event.event === 'ready');
      const { callId } = await pendingCall(other);
      await stream.next((event) => event.event === 'tool_call.created' && event.data.id === callId);
    } finally {
      stream.close();
      await other.close();
    }
  });

  it('refuses a missing key, an unknown query parameter and a foreign Last-Event-ID, as JSON errors', async () => {
    const anonymous = await fetch(`${baton.url}/v1/tool-calls/events`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
    const unknown = await baton.request('GET', '/v1/tool-calls/events?state=pending');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/state/);
    const bad = await baton.request('GET', '/v1/tool-calls/events', undefined, { 'last-event-id': 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_last_event_id', param: 'Last-Event-ID' });
  });

  it('ends open streams when the server shuts down', async () => {
    const short = await startTestBaton();
    const stream = await SseStream.open(`${short.url}/v1/tool-calls/events`, auth);
    await stream.next((event) => event.event === 'ready');
    const started = Date.now();
    await short.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(stream.next(() => false, 2_000)).rejects.toThrow(/stream ended/);
  });
});
