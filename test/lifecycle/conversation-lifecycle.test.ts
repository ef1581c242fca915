import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsMentioning, tableReadingBackends, type Tables } from './table-reading-backends.ts';
import type { ContentPart, ItemPayload } from '../../src/domain/records.ts';
import type { ProviderState } from '../../src/domain/provider-state.ts';

/** Provider state never leaves Baton: both sides of the comparison get this instead. */
const NO_PROVIDER = {} as ProviderState;
import { type TestBaton } from '../helpers/test-baton.ts';

/**
 * Data lifecycle (issue 21) on SQLite and PostgreSQL: a delete leaves no row of the conversation
 * in any table (the tables are listed from the database itself, so a new table is covered), an
 * export round-trips every item, and bad input (another app's conversation, a running one, an
 * unknown id) gets a precise 4xx and changes nothing.
 */

const REFUND = 'I need approval to process a $500 refund';
const backends = await tableReadingBackends('baton-lifecycle');

function partFromExport(part: Record<string, unknown>): ContentPart {
  if (part.type === 'text') return { type: 'text', text: part.text as string };
  if (part.type === 'image') return { type: 'image', mediaType: part.media_type as string, data: part.data as string };
  return {
    type: 'file',
    mediaType: part.media_type as string,
    data: part.data as string | null,
    url: part.url as string | null,
    filename: part.filename as string | null,
  };
}

/** An exported item read back as the store's payload (what an import would write). */
function payloadFromExport(item: Record<string, any>): ItemPayload {
  switch (item.type) {
    case 'message':
      return {
        type: 'message',
        role: item.role,
        content: item.content.map(partFromExport),
        ...(item.phase ? { phase: item.phase } : {}),
      };
    case 'reasoning':
      return { type: 'reasoning', text: item.text, provider: NO_PROVIDER };
    case 'function_call':
      return {
        type: 'function_call',
        callId: item.call_id,
        name: item.name,
        arguments: item.arguments,
        executor: item.executor,
      };
    default:
      return {
        type: 'function_call_output',
        callId: item.call_id,
        name: item.name,
        output: item.output.map(partFromExport),
        isError: item.is_error,
        synthetic: item.synthetic,
      };
  }
}

/** A stored payload without what never leaves Baton (provider state). */
function withoutProvider(payload: ItemPayload): ItemPayload {
  if (payload.type === 'reasoning') return { ...payload, provider: NO_PROVIDER };
  if ('provider' in payload) {
    const { provider: _provider, ...rest } = payload;
    return rest as ItemPayload;
  }
  return payload;
}

describe.each(backends)('data lifecycle on $name', (backend) => {
  let server: TestBaton;
  let tables: () => Promise<Tables>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ server, tables, close } = await backend.start());
  }, 60_000);
  afterAll(async () => close?.());

  /** A thread with a turn answered through the ledger (with an Idempotency-Key) and a second turn paused on a call. */
  async function busyThread(): Promise<{ threadId: string; callIds: string[] }> {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk', metadata: { user: 'u-42' } });
    const threadId = thread.body.id as string;
    const first = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: REFUND });
    const firstCall = first.body.choices[0].message.tool_calls[0].id as string;
    const answered = await server.request(
      'POST',
      `/v1/tool-calls/${firstCall}/result`,
      { content: '{"approved": true, "approved_by": "m@x.com"}' },
      { 'idempotency-key': `answer-${threadId}` },
    );
    expect(answered.status).toBe(200);
    const second = await server.request(
      'POST',
      `/v1/threads/${threadId}/messages`,
      { content: REFUND },
      { 'idempotency-key': `second-${threadId}` },
    );
    expect(second.body.choices[0].finish_reason).toBe('tool_use');
    return { threadId, callIds: [firstCall, second.body.choices[0].message.tool_calls[0].id as string] };
  }

  it('DELETE /v1/threads/{id}: cancels the pending call, leaves no row of the conversation in any table, 404 everywhere', async () => {
    const { threadId, callIds } = await busyThread();
    const before = await tables();
    const turnIds = (before.turns as { id: string; conversation_id: string }[])
      .filter((turn) => turn.conversation_id === threadId)
      .map((turn) => turn.id);
    expect(turnIds.length).toBeGreaterThanOrEqual(2);
    expect(rowsMentioning(before, [threadId]).length).toBeGreaterThan(0);
    const idempotency = before.idempotency_keys as { key: string }[];
    expect(idempotency.map((row) => row.key)).toEqual(
      expect.arrayContaining([`answer-${threadId}`, `second-${threadId}`]),
    );

    const deleted = await server.request('DELETE', `/v1/threads/${threadId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: threadId, object: 'thread.deleted', deleted: true });

    expect(rowsMentioning(await tables(), [threadId, ...turnIds, ...callIds])).toEqual([]);
    expect((await tables()).idempotency_keys).not.toContainEqual(
      expect.objectContaining({ key: `answer-${threadId}` }),
    );
    for (const path of [
      `/v1/threads/${threadId}`,
      `/v1/threads/${threadId}/messages`,
      `/v1/threads/${threadId}/export`,
      `/v1/tool-calls/${callIds[1]}`,
    ]) {
      expect((await server.request('GET', path)).status, path).toBe(404);
    }
    expect((await server.request('DELETE', `/v1/threads/${threadId}`)).body.error.code).toBe('thread_not_found');

    const audit = await server.request('GET', '/v1/audit-events?limit=5');
    const event = (audit.body.data as { action: string; target: string }[]).find(
      (entry) => entry.action === 'conversation.deleted' && entry.target === threadId,
    );
    expect(event).toMatchObject({
      actor: expect.stringMatching(/^key_/),
      counts: expect.objectContaining({ conversations: 1, turns: turnIds.length, ledger_entries: 2 }),
      details: expect.objectContaining({ cancelled_calls: 1 }),
    });
  });

  it('a Responses chain and a CES session deleted through Threads are 404 on their own faces', async () => {
    const response = await server.request('POST', '/v1/responses', { model: 'refund-desk', input: REFUND });
    const conversationId = response.body.baton_run.conversation_id as string;
    expect((await server.request('DELETE', `/v1/threads/${conversationId}`)).status).toBe(200);
    expect((await server.request('GET', `/v1/responses/${response.body.id}`)).status).toBe(404);
    expect((await server.request('GET', `/v1/responses/${response.body.id}/export`)).status).toBe(404);
    expect(rowsMentioning(await tables(), [conversationId, response.body.id])).toEqual([]);
  });

  it('an export round-trips every item, with the calls, their decisions and the turns', async () => {
    const { threadId, callIds } = await busyThread();
    const exported = await server.request('GET', `/v1/threads/${threadId}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({
      schema: 'baton.conversation-export/v1',
      conversation: { id: threadId, agent: { name: 'refund-desk' }, metadata: { user: 'u-42' } },
    });
    const stored = (await tables()).items as { id: string; conversation_id: string; payload: string; seq: unknown }[];
    const own = stored.filter((item) => item.conversation_id === threadId);
    expect(own.length).toBeGreaterThan(3);
    const items = exported.body.items as Record<string, any>[];
    expect(items.map((item) => item.id)).toEqual(own.map((item) => item.id));
    for (const [index, item] of items.entries()) {
      expect(payloadFromExport(item)).toEqual(withoutProvider(JSON.parse(own[index]!.payload) as ItemPayload));
      expect(item.seq).toBe(Number(own[index]!.seq));
    }
    const calls = exported.body.tool_calls as Record<string, any>[];
    expect(calls.map((call) => call.id)).toEqual(callIds);
    expect(calls[0]).toMatchObject({
      state: 'completed',
      submitted_by: expect.stringMatching(/^key_/),
      submitted_at: expect.any(String),
      arguments: expect.any(Object),
      result: { is_error: false },
    });
    expect(calls[1]).toMatchObject({ state: 'pending', result: null });
    expect((exported.body.turns as { status: string }[]).map((turn) => turn.status)).toEqual([
      'completed',
      'requires_action',
    ]);

    const bulk = await fetch(`${server.url}/v1/exports/conversations`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    expect(bulk.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = (await bulk.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { conversation: { id: string } });
    expect(lines.map((line) => line.conversation.id)).toContain(threadId);
    expect(lines.find((line) => line.conversation.id === threadId)).toEqual(exported.body);
    const audit = await server.request('GET', '/v1/audit-events?limit=2');
    expect((audit.body.data as { action: string }[]).map((event) => event.action)).toEqual([
      'conversations.exported',
      'conversation.exported',
    ]);
  });

  it('bad input changes nothing: another app, an unknown id, a running turn', async () => {
    const { threadId } = await busyThread();
    const created = await server.request('POST', '/v1/apps', { name: `other-${backend.name}` });
    const otherKey = created.body.api_key.key as string;
    const snapshot = JSON.stringify(rowsMentioning(await tables(), [threadId]));

    const foreign = await server.request('DELETE', `/v1/threads/${threadId}`, undefined, {
      authorization: `Bearer ${otherKey}`,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('thread_not_found');
    const foreignExport = await server.request('GET', `/v1/threads/${threadId}/export`, undefined, {
      authorization: `Bearer ${otherKey}`,
    });
    expect(foreignExport.status).toBe(404);
    expect((await server.request('DELETE', '/v1/threads/thread_unknown')).status).toBe(404);

    // A turn running now (as a process mid-model-call leaves it): the delete is refused and names it.
    const state = await server.request('GET', `/v1/threads/${threadId}`);
    const turnId =
      state.body.active_turn_id ??
      (await server.baton.store.conversations.get(server.baton.defaultAppId, threadId))!.activeTurnId!;
    const store = server.baton.store;
    const now = new Date().toISOString();
    expect(
      await store.turns.update(turnId, ['requires_action'], { status: 'in_progress', updatedAt: now }),
    ).toBeDefined();
    const refused = await server.request('DELETE', `/v1/threads/${threadId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conversation_running', turn_id: turnId });
    expect(refused.body.error.message).toContain(turnId);
    await store.turns.update(turnId, ['in_progress'], { status: 'requires_action', updatedAt: now });

    const after = JSON.parse(JSON.stringify(rowsMentioning(await tables(), [threadId]))) as string[];
    // Only the turn's own updated_at moved (the test's status flip); nothing was deleted or cancelled.
    expect(after.length).toBe((JSON.parse(snapshot) as string[]).length);
    expect((await server.request('GET', `/v1/threads/${threadId}`)).body.status).toBe('pending');
  });
});
