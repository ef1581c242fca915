import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../../helpers/test-baton.ts';
import {
  APP,
  ask,
  createAgent,
  createToolset,
  type Everything,
  type RecordingProxy,
  retrieveTools,
  startEverything,
  startMcpBaton,
  startRecordingProxy,
} from './everything-fixtures.ts';

/**
 * What reaches the MCP server, seen through a recording proxy in front of server-everything: the
 * bearer token (from a session variable) only on tool execution, never on listing; and every
 * connection closed when Baton shuts down.
 */

const program = {
  rules: [
    { when: { user: 'echo' }, call: { tool: 'echo', arguments: { message: 'hi from baton' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

function runSession(baton: TestBaton, session: string, inputs: unknown[]) {
  return baton.request('POST', `/v1/${APP}/sessions/${session}:runSession`, {
    config: { session: `${APP}/sessions/${session}`, entryAgent: `${APP}/agents/keyholder` },
    inputs,
  });
}

const methods = (proxy: RecordingProxy, method: string) => proxy.calls.filter((call) => call.method === method);

describe('MCP toolsets through a recording proxy: credentials and connections', () => {
  let everything: Everything;
  let proxy: RecordingProxy;
  let baton: TestBaton;

  beforeAll(async () => {
    everything = await startEverything();
    proxy = await startRecordingProxy(everything.url);
    baton = await startMcpBaton({ desk: program });
    await createToolset(baton, 'authed', {
      serverAddress: proxy.url,
      apiAuthentication: { bearerTokenConfig: { token: '$context.variables.tok' } },
    });
    await createAgent(baton, 'keyholder', 'desk', 'authed', ['echo']);
  }, 60_000);
  afterAll(async () => {
    await baton?.close();
    await proxy?.close();
    await everything?.stop();
  });

  it('lists tools without the bearer token and sends it, from the session variable, only with tools/call', async () => {
    const answer = await runSession(baton, 'with-token', [
      { variables: { tok: 'sesame-123' } },
      { text: 'echo please' },
    ]);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.outputs.at(-1).text).toBe('Done: Echo: hi from baton');

    const listings = methods(proxy, 'tools/list');
    const calls = methods(proxy, 'tools/call');
    expect(listings.length).toBeGreaterThan(0);
    expect(listings.every((call) => call.authorization === null)).toBe(true);
    expect(calls.map((call) => call.authorization)).toEqual(['Bearer sesame-123']);

    // `:retrieveTools` asks the server afresh, also without the token.
    const before = methods(proxy, 'tools/list').length;
    expect((await retrieveTools(baton, 'authed', { toolIds: ['echo'] })).status).toBe(200);
    const after = methods(proxy, 'tools/list');
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)?.authorization).toBeNull();
  });

  it("uses each session's own token", async () => {
    const answer = await runSession(baton, 'other-token', [
      { variables: { tok: 'other-456' } },
      { text: 'echo please' },
    ]);
    expect(answer.status).toBe(200);
    expect(methods(proxy, 'tools/call').map((call) => call.authorization)).toEqual([
      'Bearer sesame-123',
      'Bearer other-456',
    ]);
  });

  it('without the session variable the call is an error result naming it, and nothing is sent to the server', async () => {
    const before = methods(proxy, 'tools/call').length;
    const answer = await runSession(baton, 'no-token', [{ text: 'echo please' }]);
    expect(answer.status).toBe(200);
    expect(answer.body.outputs.at(-1).text).toMatch(/^Failed: .*tok/);
    expect(methods(proxy, 'tools/call')).toHaveLength(before);
  });
});

describe('MCP connections at shutdown', () => {
  it('closes every connection to the MCP server when Baton closes, promptly', async () => {
    const everything = await startEverything();
    const proxy = await startRecordingProxy(everything.url);
    const baton = await startMcpBaton({ desk: program });
    try {
      await createToolset(baton, 'plain', { serverAddress: proxy.url });
      await createAgent(baton, 'keyholder', 'desk', 'plain', ['echo']);
      expect((await ask(baton, 'keyholder', 'echo please')).reply.message.content).toBe('Done: Echo: hi from baton');
      // The pooled client keeps a session (and its SSE stream) open between calls.
      expect(methods(proxy, 'initialize').length).toBeGreaterThan(0);
      await waitFor(() => proxy.openRequests() > 0, 'an open request from the pooled MCP client');

      const started = Date.now();
      await baton.close();
      expect(Date.now() - started).toBeLessThan(3_000);
      await waitFor(() => proxy.openRequests() === 0, `no open requests after close (still ${proxy.openRequests()})`);
    } finally {
      await baton.close().catch(() => {});
      await proxy.close();
      await everything.stop();
    }
  });
});

async function waitFor(condition: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
