import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';
import { violatedField } from '../ces/ces-test-client.ts';

const APP = 'projects/default/locations/global/apps/default';

type ToolResult = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };

/**
 * The management MCP tools take the request messages in proto field names too (`toolset_id`,
 * `mcp_toolset`, `update_mask`), as CES's MCP server does, and answer in JSON names. Driven by the
 * official MCP SDK client against a real Baton.
 */
describe('/mcp: CES tools with proto field names', () => {
  let baton: TestBaton;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> =>
    (await client.callTool({ name, arguments: args })) as ToolResult;
  const errorOf = (result: ToolResult) => {
    expect(result.isError).toBe(true);
    return JSON.parse(result.content[0]!.text).error as { status: string; message: string; details: any[] };
  };

  beforeAll(async () => {
    baton = await startTestBaton();
    client = new Client({ name: 'ces-mcp-field-names', version: '1.0.0' });
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

  it('create_toolset from the seed’s CreateToolsetRequest in proto names answers what REST answers', async () => {
    const created = await call('create_toolset', {
      parent: APP,
      toolset_id: 'weather',
      toolset: {
        display_name: 'Weather',
        description: 'Forecasts.',
        execution_type: 'SYNCHRONOUS',
        tool_fake_config: { enable_fake_mode: false },
        mcp_toolset: { server_address: 'https://example.com/mcp/' },
      },
    });
    expect(created.isError, created.content[0]?.text).toBeFalsy();
    expect(created.structuredContent).toMatchObject({
      name: `${APP}/toolsets/weather`,
      displayName: 'Weather',
      executionType: 'SYNCHRONOUS',
      toolFakeConfig: { enableFakeMode: false },
      mcpToolset: { serverAddress: 'https://example.com/mcp/' },
    });
    const rest = await baton.request('GET', `/v1/${APP}/toolsets/weather`);
    expect(created.structuredContent).toEqual(rest.body);

    const updated = await call('update_toolset', {
      toolset: { name: `${APP}/toolsets/weather`, display_name: 'Weather (EU)', etag: rest.body.etag },
      update_mask: 'display_name',
    });
    expect(updated.isError, updated.content[0]?.text).toBeFalsy();
    expect(updated.structuredContent).toMatchObject({ displayName: 'Weather (EU)', description: 'Forecasts.' });

    const tool = await call('create_tool', {
      parent: APP,
      tool_id: 'open-settings',
      tool: {
        client_function: {
          name: 'open_settings',
          description: 'Opens the settings screen.',
          parameters: { type: 'OBJECT', properties: { screen_name: { type: 'STRING' } } },
        },
      },
    });
    expect(tool.structuredContent).toMatchObject({
      displayName: 'open_settings',
      clientFunction: { parameters: { properties: { screen_name: { type: 'STRING' } } } },
    });
    const listed = await call('list_toolsets', { parent: APP, page_size: 10, order_by: 'create_time desc' });
    expect(listed.structuredContent.toolsets.map((one: { name: string }) => one.name)).toEqual([
      `${APP}/toolsets/weather`,
    ]);
  });

  it('refuses both spellings of a field, and names bad fields as written, changing nothing', async () => {
    const before = (await baton.request('GET', `/v1/${APP}/toolsets`)).body;
    const both = errorOf(
      await call('create_toolset', {
        parent: APP,
        toolsetId: 'twice',
        toolset_id: 'twice',
        toolset: { displayName: 'Twice', mcpToolset: { serverAddress: 'https://example.com/mcp/' } },
      }),
    );
    expect(both.status).toBe('INVALID_ARGUMENT');
    expect(both.message).toMatch(/'toolsetId' and 'toolset_id'|'toolset_id' and 'toolsetId'/);

    // The input schema check (before any service runs) names the field as written…
    const enumError = errorOf(
      await call('create_toolset', {
        parent: APP,
        toolset: { display_name: 'Sometimes', execution_type: 'SOMETIMES', mcp_toolset: { server_address: 'x' } },
      }),
    );
    expect(enumError.status).toBe('INVALID_ARGUMENT');
    expect(violatedField(enumError)).toBe('toolset.execution_type');
    expect(enumError.message).toContain("'toolset.execution_type'");
    // …and so do the resource rules.
    const address = errorOf(
      await call('create_toolset', {
        parent: APP,
        toolset: { display_name: 'FTP', mcp_toolset: { server_address: 'ftp://example.com/mcp/' } },
      }),
    );
    expect(violatedField(address)).toBe('toolset.mcp_toolset.server_address');
    expect((await baton.request('GET', `/v1/${APP}/toolsets`)).body).toEqual(before);
  });
});
