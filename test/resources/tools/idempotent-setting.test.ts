import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimCutOffCall, orphanTurn } from '../../helpers/orphaned-turns.ts';
import { ManualClock, startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import {
  clientFunctionTool,
  created,
  expectGoogleError,
  mcpToolset,
  read,
  violatedField,
} from '../../faces/ces/ces-test-client.ts';
import { APP, mixedProgram, PriceApi } from '../../server-tools/server-tool-fixtures.ts';
import { LOOPBACK } from './provider-fixtures.ts';

const TOOLS = `/v1/${APP}/tools`;
const TOOLSETS = `/v1/${APP}/toolsets`;
const quote = {
  jsFunction: {
    name: 'quote',
    parameters: { type: 'OBJECT', properties: { amount: { type: 'NUMBER' } } },
    jsCode: 'function quote(args) { return { total: args.amount * 2 }; }',
  },
};

/**
 * Baton's `idempotent` extension on Tools and Toolsets: stored, masked and checked like
 * `requireApproval`, carried onto each server tool's definition, and acted on when a replica
 * takes over a turn whose holder died mid-call (the call runs again instead of an unknown outcome).
 */
describe('idempotent on Tools and Toolsets', () => {
  const clock = new ManualClock();
  const api = new PriceApi();
  let baton: TestBaton;

  async function agent(id: string, uses: { tools?: string[]; toolsets?: string[] }): Promise<void> {
    await created(baton, `/v1/${APP}/agents?agentId=${id}`, {
      displayName: id,
      instruction: 'Help.',
      modelSettings: { model: 'scripted:mixed' },
      tools: (uses.tools ?? []).map((tool) => `${APP}/tools/${tool}`),
      toolsets: (uses.toolsets ?? []).map((toolset) => ({ toolset: `${APP}/toolsets/${toolset}` })),
    });
  }

  beforeAll(async () => {
    await api.start();
    baton = await startTestBaton({ scripted: { mixed: mixedProgram }, egressAllow: [LOOPBACK] }, { clock });
    await created(baton, `${TOOLS}?toolId=price`, { openApiTool: { openApiSchema: api.document() }, idempotent: true });
    await created(baton, `${TOOLS}?toolId=unsure-price`, { openApiTool: { openApiSchema: api.document() } });
    await created(baton, `${TOOLSETS}?toolsetId=prices`, {
      displayName: 'Prices',
      openApiToolset: { openApiSchema: api.document() },
      idempotent: true,
    });
    await agent('steady', { tools: ['price'] });
    await agent('unsure', { tools: ['unsure-price'] });
    await agent('shelf', { toolsets: ['prices'] });
  });
  afterAll(async () => {
    await baton?.close();
    await api.close();
  });

  it('a Tool keeps idempotent: true, shows it, filters on it and turns it off with updateMask=idempotent', async () => {
    const tool = await created(baton, `${TOOLS}?toolId=quote`, { ...quote, idempotent: true });
    expect(tool.idempotent).toBe(true);
    expect((await read(baton, tool.name)).body.idempotent).toBe(true);
    const filtered = await baton.request('GET', `${TOOLS}?filter=${encodeURIComponent('idempotent = true')}`);
    expect(filtered.status, JSON.stringify(filtered.body)).toBe(200);
    expect(filtered.body.tools.map((one: { name: string }) => one.name).sort()).toEqual([
      `${APP}/tools/price`,
      tool.name,
    ]);
    const off = await baton.request('PATCH', `/v1/${tool.name}?updateMask=idempotent`, {
      idempotent: false,
      jsFunction: { name: 'ignored', jsCode: 'x' },
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({ idempotent: false, jsFunction: quote.jsFunction });
    expect((await read(baton, tool.name)).body).toEqual(off.body);
  });

  it('a Toolset keeps idempotent: true, shows it and turns it off with updateMask=idempotent', async () => {
    const toolset = await created(baton, `${TOOLSETS}?toolsetId=crm`, { ...mcpToolset('CRM'), idempotent: true });
    expect(toolset.idempotent).toBe(true);
    expect((await read(baton, toolset.name)).body.idempotent).toBe(true);
    const off = await baton.request('PATCH', `/v1/${toolset.name}?updateMask=idempotent`, {
      idempotent: false,
      description: 'ignored',
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.idempotent).toBe(false);
    expect(off.body.description).toBeUndefined();
    expect((await read(baton, toolset.name)).body).toEqual(off.body);
  });

  it('refuses an idempotent that is not a boolean, naming tool.idempotent or toolset.idempotent, and stores nothing', async () => {
    const tool = expectGoogleError(
      await baton.request('POST', `${TOOLS}?toolId=yes`, { ...quote, idempotent: 'yes' }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(tool)).toBe('tool.idempotent');
    expect(tool.message).toContain('tool.idempotent');
    expect(tool.message).toContain('boolean');
    expectGoogleError(await read(baton, `${APP}/tools/yes`), 404, 'NOT_FOUND');

    const toolset = expectGoogleError(
      await baton.request('POST', `${TOOLSETS}?toolsetId=yes`, { ...mcpToolset('Yes'), idempotent: 'yes' }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(toolset)).toBe('toolset.idempotent');
    expect(toolset.message).toContain('toolset.idempotent');
    expect(toolset.message).toContain('boolean');
    const listed = (await baton.request('GET', TOOLSETS)).body.toolsets.map((one: { name: string }) => one.name);
    expect(listed).not.toContain(`${APP}/toolsets/yes`);

    // Through a mask too: the stored resource is unchanged.
    const before = (await read(baton, `${APP}/toolsets/prices`)).body;
    const masked = expectGoogleError(
      await baton.request('PATCH', `/v1/${APP}/toolsets/prices?updateMask=idempotent`, { idempotent: 'yes' }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(masked)).toBe('toolset.idempotent');
    expect((await read(baton, `${APP}/toolsets/prices`)).body).toEqual(before);
  });

  it('refuses idempotent: true on a client function, on create and through a mask', async () => {
    const refused = expectGoogleError(
      await baton.request('POST', `${TOOLS}?toolId=weather`, { ...clientFunctionTool('weather'), idempotent: true }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(refused)).toBe('tool.idempotent');
    expect(refused.message).toContain('tool.idempotent');
    expect(refused.message).toContain('clientFunction');
    expectGoogleError(await read(baton, `${APP}/tools/weather`), 404, 'NOT_FOUND');

    const client = await created(baton, `${TOOLS}?toolId=lookup`, clientFunctionTool('lookup_order'));
    const masked = expectGoogleError(
      await baton.request('PATCH', `/v1/${client.name}?updateMask=idempotent`, { idempotent: true }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(violatedField(masked)).toBe('tool.idempotent');
    expect((await read(baton, client.name)).body).toEqual(client);
  });

  it('carries idempotent onto the definition of each server tool of the Tool or Toolset, as the engine sees it', async () => {
    const appId = baton.baton.defaultAppId;
    const definitionOf = async (agentName: string) => {
      const thread = (await baton.request('POST', '/v1/threads', { agent: agentName })).body.id;
      const reply = await baton.request('POST', `/v1/threads/${thread}/messages`, { role: 'user', content: 'price' });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const calls = (await baton.baton.engine.listCalls({ appId, conversationId: thread }, { limit: 10 })).data;
      expect(calls.map((call) => [call.toolName, call.state])).toEqual([['lookup_price', 'completed']]);
      return (await baton.baton.engine.getCallTool(appId, calls[0]!.id)).tool;
    };
    expect(await definitionOf('steady')).toMatchObject({ name: 'lookup_price', idempotent: true });
    expect(await definitionOf('shelf')).toMatchObject({ name: 'lookup_price', idempotent: true });
    expect((await definitionOf('unsure')).idempotent).toBeUndefined();
  });

  /** Leaves a turn of `agentName` in_progress with a claimed `lookup_price` call, as a process killed mid-call would. */
  async function cutOffCall(agentName: string, suffix: string): Promise<{ threadId: string; callId: string }> {
    const { engine, store } = baton.baton;
    const appId = baton.baton.defaultAppId;
    const now = clock.now().toISOString();
    const turnId = `turn_${suffix}`;
    const threadId = await orphanTurn(engine, store, appId, agentName, { turnId, now, text: 'price' });
    const call = { id: `call_${suffix}`, appId, conversationId: threadId, turnId, agentName, toolName: 'lookup_price' };
    await claimCutOffCall(store, { ...call, arguments: { sku: `SKU-${suffix}` } }, now);
    return { threadId, callId: call.id };
  }

  it('a replica taking over a turn runs a cut-off call of an idempotent tool again; any other gets an unknown outcome', async () => {
    const { engine } = baton.baton;
    const rerun = await cutOffCall('steady', 'rerun');
    const unknown = await cutOffCall('unsure', 'unknown');
    const before = api.requests.length;
    clock.advance(601);
    expect(await engine.recoverStaleTurns()).toBe(2);
    await engine.idle();
    // Only the idempotent tool's call reached the API again, with its arguments.
    expect(api.requests.slice(before).map((request) => request.url)).toEqual(['/prices/SKU-rerun']);

    const ran = await baton.request('GET', `/v1/tool-calls/${rerun.callId}`);
    expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    expect(ran.body).toMatchObject({ state: 'completed' });
    expect(ran.body.result.content).toContain('SKU-rerun');

    const cut = await baton.request('GET', `/v1/tool-calls/${unknown.callId}`);
    expect(cut.body).toMatchObject({ state: 'failed', submitted_by: 'baton:recovery' });
    expect(cut.body.result.content).toContain('whether it took effect is unknown');

    // Both turns went on: the model read the result and answered.
    const last = async (threadId: string) =>
      (await baton.request('GET', `/v1/threads/${threadId}/messages`)).body.data.at(-1).content as string;
    expect(await last(rerun.threadId)).toMatch(/^Done: .*SKU-rerun/);
    expect(await last(unknown.threadId)).toMatch(/^Failed: .*unknown/);
  });
});
