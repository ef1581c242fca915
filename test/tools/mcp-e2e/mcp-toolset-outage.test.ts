import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_SERVER_TOOLS } from '../../../src/resources/tools/server-tools.ts';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { freePort } from '../../reliability/baton-process.ts';
import {
  APP,
  ask,
  createAgent,
  createToolset,
  type Everything,
  ok,
  resultText,
  retrieveTools,
  serverCalls,
  startEverything,
  startMcpBaton,
} from './everything-fixtures.ts';

/**
 * An MCP server that is down: when the toolset is created (no snapshot yet), and after a
 * snapshot was pinned (Baton restarted on the same SQLite file, so no list is cached in memory).
 */

const program = {
  rules: [
    { when: { user: 'echo' }, call: { tool: 'echo', arguments: { message: 'still there?' } } },
    { when: { tool_error: true }, say: 'Failed: {{result}}' },
    { when: { tool_result: true }, say: 'Done: {{result}}' },
    { say: 'ok' },
  ],
};

const errorInfo = (body: any) =>
  body.error.details.find((detail: any) => detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');

describe('MCP toolsets whose server is down', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const track = <T extends TestBaton | Everything>(thing: T): T => {
    cleanups.push(() => ('stop' in thing ? thing.stop() : thing.close()));
    return thing;
  };

  it('creates the toolset, explains the outage in :retrieveTools, runs turns without its tools, and recovers when the server comes up', async () => {
    const port = await freePort();
    const address = `http://127.0.0.1:${port}/mcp`;
    const baton = track(await startMcpBaton({ desk: program }));
    const toolset = await createToolset(baton, 'later', { serverAddress: address });
    expect(toolset.name).toBe(`${APP}/toolsets/later`);
    await ok(baton, `/v1/${APP}/agents?agentId=fallback`, {
      displayName: 'Fallback',
      modelSettings: { model: 'scripted:auto' },
      toolsets: [{ toolset: `${APP}/toolsets/later`, toolIds: ['echo'] }],
    });

    const retrieved = await retrieveTools(baton, 'later');
    expect(retrieved.status, JSON.stringify(retrieved.body)).toBe(503);
    expect(retrieved.body.error.status).toBe('UNAVAILABLE');
    expect(retrieved.body.error.message).toContain(`MCP server ${address} is unavailable`);
    expect(retrieved.body.error.message).toContain('ECONNREFUSED');
    expect(retrieved.body.error.message).toContain('unavailable until the server answers');
    expect(retrieved.body.error.message).not.toContain('..');
    expect(errorInfo(retrieved.body)).toMatchObject({
      reason: 'MCP_SERVER_UNAVAILABLE',
      metadata: { serverAddress: address, toolset: `${APP}/toolsets/later` },
    });

    // scripted:auto calls a tool whenever one is offered: a plain answer means none was.
    const turn = await ask(baton, 'fallback', 'please echo hello');
    expect(turn.reply.finish_reason).toBe('stop');
    expect(turn.reply.message.content).toContain('no tools available');
    expect(serverCalls(turn.messages).calls).toEqual([]);

    // Once the server answers, :retrieveTools asks it afresh and the next turn offers its tools.
    track(await startEverything(port));
    const recovered = await retrieveTools(baton, 'later', { toolIds: ['echo'] });
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(200);
    expect(recovered.body.tools.map((tool: any) => tool.mcpTool.name)).toEqual(['echo']);
    expect(recovered.body.snapshot).toBeUndefined();
    const after = await ask(baton, 'fallback', 'please echo hello');
    expect(serverCalls(after.messages).calls).toEqual([['echo', 'server']]);
    expect(resultText(serverCalls(after.messages).results[0])).toMatch(/^Echo: /);
  });

  it(
    'after a restart with the server down, serves the pinned snapshot: :retrieveTools says so, ' +
      'turns offer the tools and their calls fail as results',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'baton-mcp-snapshot-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const start = () =>
        startMcpBaton(
          { desk: program },
          { store: { kind: 'sqlite', filename: join(dir, 'baton.db') } },
          { dataDir: dir },
        );
      const everything: Everything = track(await startEverything());

      const first: TestBaton = await start();
      try {
        await createToolset(first, 'pinned', {
          serverAddress: everything.url,
          toolOverrides: [{ tool: 'echo', descriptionOverride: 'Says it again.' }],
        });
        await createAgent(first, 'pinner', 'desk', 'pinned', ['echo']);
        expect((await ask(first, 'pinner', 'echo please')).reply.message.content).toBe('Done: Echo: still there?');
        const live = await retrieveTools(first, 'pinned', { toolIds: ['echo'] });
        expect(live.status).toBe(200);
        expect(live.body.snapshot).toBeUndefined();
      } finally {
        await first.close();
      }
      await everything.stop();

      const second = track(await start());
      const retrieved = await retrieveTools(second, 'pinned');
      expect(retrieved.status, JSON.stringify(retrieved.body)).toBe(200);
      expect(retrieved.body.snapshot).toEqual({
        pinTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        reason: expect.stringContaining(`MCP server ${everything.url} is unavailable`),
      });
      expect(retrieved.body.snapshot.reason).toContain('ECONNREFUSED');
      const echo = retrieved.body.tools.find((tool: any) => tool.mcpTool.name === 'echo');
      expect(echo).toMatchObject({
        name: `${APP}/toolsets/pinned/tools/echo`,
        displayName: 'echo',
        mcpTool: { description: 'Says it again.', serverAddress: everything.url },
      });
      expect(retrieved.body.tools.length).toBeGreaterThan(5);

      const turn = await ask(second, 'pinner', 'echo please');
      const { calls, results } = serverCalls(turn.messages);
      expect(calls).toEqual([['echo', 'server']]);
      expect(results).toEqual([expect.objectContaining({ is_error: true })]);
      expect(resultText(results[0])).toContain(`MCP server ${everything.url} could not run 'echo'`);
      expect(turn.reply.finish_reason).toBe('stop');
      expect(turn.reply.message.content).toMatch(
        new RegExp(`^Failed: MCP server ${everything.url.replace(/[.]/g, '\\.')} could not run 'echo'`),
      );
    },
  );

  it(':retrieveTools is UNIMPLEMENTED when Baton runs with a stand-in tool provider', async () => {
    const baton = track(await startTestBaton({}, { tools: NO_SERVER_TOOLS }));
    await createToolset(baton, 'any', { serverAddress: 'https://tools.example.com/mcp/' });
    const answer = await retrieveTools(baton, 'any', {});
    expect(answer.status).toBe(501);
    expect(answer.body.error.status).toBe('UNIMPLEMENTED');
  });
});
