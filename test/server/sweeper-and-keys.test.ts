import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_AGENT } from '../../src/server/config.ts';
import { bootstrapAdminKey, hashApiKey } from '../../src/resources/keys/api-keys.ts';
import { ensureDefaultApp } from '../../src/resources/apps/app-records.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startTestBaton, type TestBaton } from '../helpers/test-baton.ts';

describe('the deadline sweeper on its timer', () => {
  let server: TestBaton;
  beforeAll(async () => {
    server = await startTestBaton(
      { sweepIntervalMs: 50, agents: [DEMO_AGENT, { ...DEMO_AGENT, name: 'hasty', tool_timeout_seconds: 0.3 }] },
      { sweeper: true },
    );
  });
  afterAll(async () => server.close());

  it('expires a pending call by itself and the agent continues', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'hasty' });
    const message = await server.request('POST', `/v1/threads/${thread.body.id}/messages`, {
      content: 'refund of $20',
    });
    const callId = message.body.choices[0].message.tool_calls[0].id;
    const deadline = Date.now() + 10_000;
    let state = 'pending';
    while (state === 'pending' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = (await server.request('GET', `/v1/tool-calls/${callId}`)).body.state;
    }
    expect(state).toBe('expired');
    await server.baton.engine.idle();
    const threadState = (await server.request('GET', `/v1/threads/${thread.body.id}`)).body;
    expect(threadState.status).toBe('idle');
    const messages = (await server.request('GET', `/v1/threads/${thread.body.id}/messages`)).body.data;
    expect(messages[messages.length - 1].role).toBe('assistant');
  });

  it('filters the ledger by agent and tool over HTTP', async () => {
    const thread = await server.request('POST', '/v1/threads', { agent: 'refund-desk' });
    await server.request('POST', `/v1/threads/${thread.body.id}/messages`, { content: 'refund of $20' });
    const byAgent = (await server.request('GET', '/v1/tool-calls?state=pending&agent=refund-desk')).body.data;
    expect(byAgent.length).toBeGreaterThan(0);
    expect(byAgent.every((entry: { agent: string }) => entry.agent === 'refund-desk')).toBe(true);
    expect((await server.request('GET', '/v1/tool-calls?agent=nobody')).body.data).toEqual([]);
    expect((await server.request('GET', '/v1/tool-calls?tool=request_approval&state=pending')).body.data.length).toBe(
      byAgent.length,
    );
    expect((await server.request('GET', '/v1/tool-calls?tool=other_tool')).body.data).toEqual([]);
  });
});

describe('the first (operator) key', () => {
  it('is generated once when no key exists, stored only as a hash, and BATON_ADMIN_KEY is registered', async () => {
    const store = await openStore({ kind: 'sqlite', filename: ':memory:' });
    try {
      const appId = await ensureDefaultApp(store);
      const first = await bootstrapAdminKey(store, appId, null);
      expect(first.generated).toMatch(/^bk_/);
      const stored = await store.apiKeys.findByHash(hashApiKey(first.generated!));
      expect(stored?.role).toBe('operator');
      expect(JSON.stringify(stored)).not.toContain(first.generated!);
      expect((await bootstrapAdminKey(store, appId, null)).generated).toBeNull();
      await bootstrapAdminKey(store, appId, 'bk_from_environment');
      expect((await store.apiKeys.findByHash(hashApiKey('bk_from_environment')))?.role).toBe('operator');
      expect(await store.apiKeys.count()).toBe(2);
    } finally {
      await store.close();
    }
  });
});
