import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import {
  APP,
  clientFunctionTool,
  created,
  expectGoogleError,
  mcpToolset,
  read,
} from '../../faces/ces/ces-test-client.ts';

/** Deleting a tool or toolset that agents use: refused without force; force removes the references. */
describe('CES delete of referenced tools and toolsets', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton();
  });
  afterAll(async () => baton?.close());

  it('a toolset used by an agent: FAILED_PRECONDITION without force; force removes it from the agent', async () => {
    const used = await created(baton, `/v1/${APP}/toolsets?toolsetId=used`, mcpToolset('Used'));
    const kept = await created(baton, `/v1/${APP}/toolsets?toolsetId=kept`, mcpToolset('Kept'));
    const agent = await created(baton, `/v1/${APP}/agents?agentId=user`, {
      displayName: 'User',
      toolsets: [{ toolset: used.name, toolIds: ['a'] }, { toolset: kept.name }],
    });
    const other = await created(baton, `/v1/${APP}/agents?agentId=other`, {
      displayName: 'Other',
      toolsets: [{ toolset: used.name }],
    });

    const error = expectGoogleError(await baton.request('DELETE', `/v1/${used.name}`), 400, 'FAILED_PRECONDITION');
    expect(error.message).toContain(`${APP}/agents/user`);
    expect(error.message).toContain(`${APP}/agents/other`);
    expect(error.message).toContain('force=true');
    expect(error.details[0].metadata.referrers).toBe(`${APP}/agents/other,${APP}/agents/user`);
    expect((await read(baton, used.name)).body).toEqual(used);
    expect((await read(baton, agent.name)).body).toEqual(agent);

    expect(await baton.request('DELETE', `/v1/${used.name}?force=true`)).toMatchObject({ status: 200, body: {} });
    expectGoogleError(await read(baton, used.name), 404, 'NOT_FOUND');
    const after = (await read(baton, agent.name)).body;
    expect(after.toolsets).toEqual([{ toolset: kept.name }]);
    expect(after.etag).not.toBe(agent.etag);
    expect((await read(baton, other.name)).body.toolsets).toBeUndefined();
  });

  it('a tool used by an agent: the same rule', async () => {
    const tool = await created(baton, `/v1/${APP}/tools?toolId=shared`, clientFunctionTool('shared'));
    const agent = await created(baton, `/v1/${APP}/agents?agentId=tooluser`, {
      displayName: 'Tool user',
      tools: [tool.name],
    });

    const error = expectGoogleError(
      await baton.request('DELETE', `/v1/${tool.name}?force=false`),
      400,
      'FAILED_PRECONDITION',
    );
    expect(error.message).toContain(`${APP}/agents/tooluser`);
    expect((await read(baton, tool.name)).body).toEqual(tool);

    expect((await baton.request('DELETE', `/v1/${tool.name}?force=true`)).status).toBe(200);
    const after = (await read(baton, agent.name)).body;
    expect(after.tools).toBeUndefined();
    expect(after.etag).not.toBe(agent.etag);
  });

  it('force with a stale etag is ABORTED before any reference is removed', async () => {
    const toolset = await created(baton, `/v1/${APP}/toolsets?toolsetId=guarded`, mcpToolset('Guarded'));
    const agent = await created(baton, `/v1/${APP}/agents?agentId=guard`, {
      displayName: 'Guard',
      toolsets: [{ toolset: toolset.name }],
    });
    await baton.request('PATCH', `/v1/${toolset.name}?updateMask=description`, { description: 'changed' });
    expectGoogleError(
      await baton.request('DELETE', `/v1/${toolset.name}?force=true&etag=${encodeURIComponent(toolset.etag)}`),
      409,
      'ABORTED',
    );
    expect((await read(baton, agent.name)).body).toEqual(agent);
  });
});
