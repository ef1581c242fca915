import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

/**
 * The history windows the store keeps per conversation version (src/store/history-windows.ts):
 * after every kind of request, the window served at the conversation's current version is exactly
 * what the database holds, and it is served from memory (an item rewritten behind the store's
 * back shows only in an uncached read).
 */
describe('history windows kept by version', () => {
  let server: TestBaton;
  let directory: string;
  let file: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'baton-windows-'));
    file = join(directory, 'baton.db');
    server = await startTestBaton({}, { store: { kind: 'sqlite', filename: file } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function expectExactWindow(conversationId: string): Promise<void> {
    const { store, defaultAppId } = server.baton;
    const conversation = await store.conversations.get(defaultAppId, conversationId);
    expect(conversation).toBeDefined();
    for (const limit of [3, 201]) {
      const served = await store.items.listWindow(conversationId, limit, conversation!.version);
      const stored = await store.items.listWindow(conversationId, limit);
      expect(served).toEqual(stored);
    }
  }

  async function pause(threadId: string): Promise<string> {
    const message = await server.request('POST', `/v1/threads/${threadId}/messages`, { content: 'refund of $20' });
    expect(message.body.choices[0].finish_reason).toBe('tool_use');
    return message.body.choices[0].message.tool_calls[0].id as string;
  }

  it('serves exactly the stored window after starts, pauses, resumes, cancels and new threads', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const threadId = thread.body.id as string;
    await expectExactWindow(threadId);
    for (let round = 0; round < 3; round += 1) {
      const callId = await pause(threadId);
      await expectExactWindow(threadId);
      const answered = await server.request('POST', `/v1/threads/${threadId}/messages`, {
        content: [
          {
            type: 'tool_result',
            tool_call_id: callId,
            content: '{"approved": true, "approved_by": "ana@example.com"}',
          },
        ],
      });
      expect(answered.status).toBe(200);
      await expectExactWindow(threadId);
    }
    // A cancel closes the paused turn with synthetic outputs, from outside the run.
    await pause(threadId);
    const cancelled = await server.request('POST', `/v1/threads/${threadId}/cancel`);
    expect(cancelled.status).toBe(200);
    await expectExactWindow(threadId);
    await pause(threadId);
    await expectExactWindow(threadId);
  });

  it('serves exactly the stored window across a Responses chain answered with function outputs', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });
    const tools = [
      {
        type: 'function' as const,
        name: 'lookup_order',
        description: 'Looks an order up.',
        parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        strict: false,
      },
    ];
    const first = await client.responses.create({ model: 'scripted:auto', input: 'call lookup_order', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call?.type).toBe('function_call');
    const { store, defaultAppId } = server.baton;
    const stored = await store.responses.get(defaultAppId, first.id);
    await expectExactWindow(stored!.conversationId);
    if (call?.type === 'function_call') {
      await client.responses.create({
        model: 'scripted:auto',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"status":"shipped"}' }],
        tools,
      });
      await expectExactWindow(stored!.conversationId);
    }
    await client.responses
      .create({ model: 'scripted:auto', previous_response_id: first.id, input: 'and now?' })
      .catch(() => {});
    await expectExactWindow(stored!.conversationId);
  });

  it('answers from memory: an item rewritten behind the store shows only in an uncached read', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    const threadId = thread.body.id as string;
    await pause(threadId);
    const { store, defaultAppId } = server.baton;
    const conversation = await store.conversations.get(defaultAppId, threadId);
    const before = await store.items.listWindow(threadId, 201, conversation!.version);
    const direct = new Database(file);
    try {
      direct
        .prepare(
          "UPDATE items SET payload = json_set(payload, '$.content[0].text', 'rewritten') WHERE conversation_id = ? AND type = 'message'",
        )
        .run(threadId);
    } finally {
      direct.close();
    }
    expect(await store.items.listWindow(threadId, 201, conversation!.version)).toEqual(before);
    expect(JSON.stringify(await store.items.listWindow(threadId, 201))).toContain('rewritten');
    // Another version (as after another process's write) is read from the database.
    expect(JSON.stringify(await store.items.listWindow(threadId, 201, conversation!.version + 1))).toContain(
      'rewritten',
    );
  });
});
