/**
 * A local API misbehaving behind an openApiToolset of a real Baton: redirects towards addresses
 * egress.allow does not cover, a 500, an answer slower than the toolset's timeout, and a body
 * larger than a tool result may be. Each is an error (or cut) result the model sees; the turn
 * always completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBaton } from '../../helpers/test-baton.ts';
import { MAX_API_RESPONSE_BYTES } from '../../../src/resources/tool-kinds/openapi-source.ts';
import { BROKEN_EXPLANATION, HUGE_BYTES, localApiSchema, startLocalApi, type LocalApi } from './local-api.ts';
import {
  ask,
  callProgram,
  createAgent,
  createToolset,
  LOOPBACK,
  onlyServerResult,
  startToolBaton,
} from './provider-fixtures.ts';

describe('egress: a redirect from an allowed host name to an address egress.allow does not cover', () => {
  let api: LocalApi;
  let baton: TestBaton;
  let localhostUrl: string;

  beforeAll(async () => {
    api = await startLocalApi();
    localhostUrl = `http://localhost:${api.server.port}`;
    baton = await startToolBaton(
      callProgram({
        'to the address': { tool: 'getHop', arguments: { to: `http://127.0.0.1:${api.server.port}/x` } },
        'to the name': { tool: 'getHop', arguments: { to: `${localhostUrl}/x` } },
      }),
      // The name is allowed, the address it resolves to is not (by itself).
      { egressAllow: ['localhost'] },
    );
    await createToolset(baton, 'hops', {
      displayName: 'Hops',
      openApiToolset: { openApiSchema: localApiSchema(localhostUrl, ['getHop']) },
    });
    await createAgent(baton, 'hopper', { toolsets: [{ toolset: 'hops' }] });
  });
  afterAll(async () => {
    await baton?.close();
    await api?.close();
  });

  it('follows a redirect that stays on the allowed name', async () => {
    const result = onlyServerResult(await ask(baton, 'hopper', 'go to the name'), 'getHop');
    expect(result.isError, result.text).toBe(false);
    expect(JSON.parse(result.text)).toEqual({ reached: '/x' });
    expect(api.hitsOf('/x')).toHaveLength(1);
  });

  it('refuses the hop to 127.0.0.1: an error result naming the address and egress.allow; the target is never reached', async () => {
    const before = { hop: api.hitsOf('/hop').length, x: api.hitsOf('/x').length };
    const turn = await ask(baton, 'hopper', 'go to the address');
    const result = onlyServerResult(turn, 'getHop');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('After 1 redirect(s)');
    expect(result.text).toContain('Refused to connect to 127.0.0.1');
    expect(result.text).toContain('egress.allow');
    expect(turn.text).toBe(`Failed: ${result.text}`);
    expect(api.hitsOf('/hop')).toHaveLength(before.hop + 1);
    expect(api.hitsOf('/x')).toHaveLength(before.x);
  });
});

describe('faults of a local API: 500, too slow, too big', () => {
  let api: LocalApi;
  let baton: TestBaton;

  beforeAll(async () => {
    api = await startLocalApi();
    baton = await startToolBaton(
      callProgram({
        broken: { tool: 'getBroken' },
        slow: [{ tool: 'getSlow' }, { tool: 'getOk' }],
        huge: { tool: 'getHuge' },
      }),
      { egressAllow: [LOOPBACK] },
    );
    await createToolset(baton, 'faults', {
      displayName: 'Faults',
      // One second for every tool of the toolset.
      timeout: '1s',
      openApiToolset: { openApiSchema: localApiSchema('https://api.invalid'), url: api.origin },
    });
    await createAgent(baton, 'faulty', { toolsets: [{ toolset: 'faults' }] });
  });
  afterAll(async () => {
    await baton?.close();
    await api?.close();
  });

  it('a 500 is an error result with the status and the start of the body', async () => {
    const turn = await ask(baton, 'faulty', 'broken');
    const result = onlyServerResult(turn, 'getBroken');
    expect(result.isError).toBe(true);
    expect(result.text).toBe(`HTTP 500 Internal Server Error: ${JSON.stringify({ error: BROKEN_EXPLANATION })}`);
    expect(turn.text).toBe(`Failed: ${result.text}`);
    expect(api.hitsOf('/broken')).toHaveLength(1);
  });

  it('an answer slower than the timeout is an error result saying so; the other call of the step still answers', async () => {
    const started = Date.now();
    const turn = await ask(baton, 'faulty', 'slow');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(4_000);
    expect(turn.reply.choices[0].finish_reason).toBe('stop');
    expect(turn.calls.map((call) => [call.name, call.executor])).toEqual([
      ['getSlow', 'server'],
      ['getOk', 'server'],
    ]);
    const byCall = new Map(turn.results.map((result) => [result.tool_call_id, result]));
    const slow = byCall.get(turn.calls[0]!.id);
    const ok = byCall.get(turn.calls[1]!.id);
    expect(slow).toMatchObject({ is_error: true, content: "Tool 'getSlow' did not answer within 1 s." });
    expect(ok?.is_error).toBeUndefined();
    expect(JSON.parse(String(ok?.content))).toEqual({ reached: '/ok' });
    expect(turn.text).toBe("Failed: Tool 'getSlow' did not answer within 1 s.");
  });

  it('a body past the cap is cut, with a marker, and is still a result', async () => {
    const turn = await ask(baton, 'faulty', 'huge');
    const result = onlyServerResult(turn, 'getHuge');
    expect(result.isError).toBe(false);
    const marker = `… [truncated: response larger than ${MAX_API_RESPONSE_BYTES} bytes]`;
    expect(MAX_API_RESPONSE_BYTES).toBeLessThan(HUGE_BYTES);
    expect(result.text).toBe(`${'h'.repeat(MAX_API_RESPONSE_BYTES)}${marker}`);
    expect(turn.text).toBe(`Done: ${result.text}`);
  });
});
