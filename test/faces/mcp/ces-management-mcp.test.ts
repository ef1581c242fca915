import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';

const MCP_ACCEPT = 'application/json, text/event-stream';
const APP = 'projects/default/locations/global/apps/default';

type ToolResult = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };

/** The CES management tools over /mcp, driven by the official MCP SDK client against a real Baton. */
describe('/mcp: the CES management tools', () => {
  let baton: TestBaton;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> =>
    (await client.callTool({ name, arguments: args })) as ToolResult;
  const errorOf = (result: ToolResult) => {
    expect(result.isError).toBe(true);
    return JSON.parse(result.content[0]!.text).error as {
      code: number;
      status: string;
      message: string;
      details: any[];
    };
  };

  beforeAll(async () => {
    baton = await startTestBaton();
    client = new Client({ name: 'ces-mcp-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baton.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ADMIN_KEY}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await baton?.close();
  });

  it('lists create_/get_/list_/update_/delete_ for apps, agents, tools and toolsets with CES annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    const expected = ['app', 'agent', 'tool', 'toolset']
      .flatMap((one) => [`create_${one}`, `get_${one}`, `list_${one}s`, `update_${one}`, `delete_${one}`])
      .sort();
    expect(names).toEqual(expected);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // As CES publishes create_toolset: destructive, not idempotent, not read-only, not open-world.
    expect(byName.get('create_toolset')?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(byName.get('delete_tool')?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(byName.get('list_agents')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.get('update_toolset')?.description).toMatch(/ALWAYS pass `updateMask`/);
    const createInput = byName.get('create_toolset')!.inputSchema as any;
    expect(createInput.required).toEqual(['parent', 'toolset']);
    expect(createInput.properties.toolset.properties.mcpToolset.properties.serverAddress.type).toBe('string');
  });

  it('manages each family with the REST request bodies, and answers what REST answers', async () => {
    const tool = await call('create_tool', {
      parent: APP,
      toolId: 'lookup-order',
      tool: {
        clientFunction: {
          name: 'lookup_order',
          description: 'Order status.',
          parameters: { type: 'OBJECT', properties: { id: { type: 'STRING' } } },
        },
      },
    });
    expect(tool.isError).toBeFalsy();
    expect(tool.structuredContent).toMatchObject({ name: `${APP}/tools/lookup-order`, displayName: 'lookup_order' });
    expect(JSON.parse(tool.content[0]!.text)).toEqual(tool.structuredContent);

    const toolset = await call('create_toolset', {
      parent: APP,
      toolsetId: 'crm',
      toolset: { displayName: 'CRM', mcpToolset: { serverAddress: 'https://crm.example.com/mcp/' } },
    });
    expect(toolset.structuredContent.name).toBe(`${APP}/toolsets/crm`);
    const agent = await call('create_agent', {
      parent: APP,
      agentId: 'orders',
      agent: {
        displayName: 'Orders',
        instruction: 'Look orders up.',
        tools: [`${APP}/tools/lookup-order`],
        toolsets: [{ toolset: `${APP}/toolsets/crm` }],
      },
    });
    expect(agent.structuredContent).toMatchObject({
      name: `${APP}/agents/orders`,
      tools: [`${APP}/tools/lookup-order`],
    });

    // Outputs equal the REST responses.
    const rest = await baton.request('GET', `/v1/${APP}/toolsets/crm`);
    expect((await call('get_toolset', { name: `${APP}/toolsets/crm` })).structuredContent).toEqual(rest.body);
    const listed = await call('list_agents', { parent: APP, filter: 'displayName = "Orders"' });
    expect(listed.structuredContent.agents.map((one: { name: string }) => one.name)).toEqual([`${APP}/agents/orders`]);

    const updated = await call('update_toolset', {
      toolset: { name: `${APP}/toolsets/crm`, description: 'Customer records', etag: rest.body.etag },
      updateMask: 'description',
    });
    expect(updated.structuredContent).toMatchObject({
      displayName: 'CRM',
      description: 'Customer records',
      mcpToolset: { serverAddress: 'https://crm.example.com/mcp/' },
    });
    const stale = await call('update_toolset', {
      toolset: { name: `${APP}/toolsets/crm`, description: 'again', etag: rest.body.etag },
      updateMask: 'description',
    });
    expect(errorOf(stale)).toMatchObject({ code: 409, status: 'ABORTED' });

    // A referenced toolset needs force; the reference goes with it.
    expect(errorOf(await call('delete_toolset', { name: `${APP}/toolsets/crm` }))).toMatchObject({
      code: 400,
      status: 'FAILED_PRECONDITION',
    });
    expect((await call('delete_toolset', { name: `${APP}/toolsets/crm`, force: true })).isError).toBeFalsy();
    expect((await call('get_agent', { name: `${APP}/agents/orders` })).structuredContent.toolsets).toBeUndefined();

    const app = await call('get_app', { name: APP });
    expect(app.structuredContent).toMatchObject({ name: APP });
    const created = await call('create_app', {
      parent: 'projects/default/locations/global',
      appId: 'mcp-made',
      app: { displayName: 'Made over MCP' },
    });
    expect(created.structuredContent).toMatchObject({
      done: true,
      response: { name: 'projects/default/locations/global/apps/mcp-made', displayName: 'Made over MCP' },
    });
    expect(
      (await call('list_apps', { parent: 'projects/default/locations/global' })).structuredContent.apps.map(
        (one: { name: string }) => one.name,
      ),
    ).toContain('projects/default/locations/global/apps/mcp-made');
    expect(
      (await call('delete_app', { name: 'projects/default/locations/global/apps/mcp-made' })).structuredContent,
    ).toMatchObject({ done: true });
  });

  it('returns failures as MCP tool errors carrying the google.rpc.Status, with state unchanged', async () => {
    const body = {
      parent: APP,
      toolsetId: 'dup',
      toolset: {
        displayName: 'Dup',
        openApiToolset: {
          openApiSchema: 'openapi: 3.0.0\ninfo: {title: t, version: "1"}\npaths: {}',
          url: 'https://api.example.com',
        },
      },
    };
    expect((await call('create_toolset', body)).isError).toBeFalsy();
    const duplicate = errorOf(await call('create_toolset', body));
    expect(duplicate).toMatchObject({ code: 409, status: 'ALREADY_EXISTS' });
    const both = errorOf(
      await call('create_toolset', {
        parent: APP,
        toolset: {
          displayName: 'Both',
          mcpToolset: { serverAddress: 'https://a.example/mcp' },
          openApiToolset: { openApiSchema: 'x' },
        },
      }),
    );
    expect(both.status).toBe('INVALID_ARGUMENT');
    const badMask = errorOf(
      await call('update_toolset', {
        toolset: { name: `${APP}/toolsets/dup`, displayName: 'X' },
        updateMask: 'displayName,colour',
      }),
    );
    expect(badMask.message).toContain('colour');
    // Arguments outside the request message are refused before any service runs.
    const unknown = await call('get_toolset', { name: `${APP}/toolsets/dup`, view: 'FULL' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toContain('view');
    const list = await call('list_toolsets', { parent: APP });
    expect(
      list.structuredContent.toolsets.filter((one: { displayName: string }) => one.displayName === 'Dup'),
    ).toHaveLength(1);
    expect(list.structuredContent.toolsets.some((one: { displayName: string }) => one.displayName === 'Both')).toBe(
      false,
    );
  });

  it("answers the seed's curl (tools/call create_toolset, no initialize) with plain JSON", async () => {
    const response = await fetch(`${baton.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', accept: MCP_ACCEPT },
      body: JSON.stringify({
        method: 'tools/call',
        params: {
          name: 'create_toolset',
          arguments: {
            parent: APP,
            toolsetId: 'weather',
            toolset: { displayName: 'Weather', mcpToolset: { serverAddress: 'https://weather.example.com/mcp/' } },
          },
        },
        jsonrpc: '2.0',
        id: 1,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as any;
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { structuredContent: { name: `${APP}/toolsets/weather`, displayName: 'Weather' } },
    });
  });

  it('refuses a missing key and malformed JSON-RPC with JSON-RPC errors', async () => {
    const send = (body: string, headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}` }) =>
      fetch(`${baton.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
        body,
      });
    const anonymous = await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32001, data: { error: { status: 'UNAUTHENTICATED' } } },
      id: null,
    });
    const malformed = await send('{"jsonrpc":');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: -32700 }, id: null });
    const notRpc = await send(JSON.stringify({ query: 'list agents' }));
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ error: { code: -32600 } });
    const get = await fetch(`${baton.url}/mcp`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(get.status).toBe(405);
  });

  it('does not leave an Idempotency-Key reserved (MCP replies bypass onSend)', async () => {
    const headers = { accept: MCP_ACCEPT, 'idempotency-key': 'mcp-key-1' };
    const first = await baton.request('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    expect(first.status).toBe(200);
    const second = await baton.request('POST', '/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
    expect(second.status).toBe(200);
    expect(second.body.result.tools).toHaveLength(20);
  });
});
