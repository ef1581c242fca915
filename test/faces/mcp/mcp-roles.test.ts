import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { roleAllows } from '../../../src/domain/access.ts';
import type { ApiKeyRole } from '../../../src/domain/records.ts';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';

type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };

const LOCATION = 'projects/default/locations/global';

/**
 * The management MCP endpoint as each role of one app sees it, and as another app's keys see it:
 * every tool checks the key's role (PERMISSION_DENIED), and another app's resources are NOT_FOUND.
 */
describe('/mcp by role and tenant', () => {
  let baton: TestBaton;
  const keys = {} as Record<'own' | 'other', Record<Exclude<ApiKeyRole, 'operator'>, string>>;
  const clients: Client[] = [];

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'roles-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baton.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  const statusOf = (result: ToolResult): string | undefined =>
    result.isError ? (JSON.parse(result.content[0]!.text).error.status as string) : undefined;

  beforeAll(async () => {
    baton = await startTestBaton();
    for (const [slot, name] of [
      ['own', 'mcp-own'],
      ['other', 'mcp-other'],
    ] as const) {
      const app = await baton.request('POST', '/v1/apps', { name });
      const admin = app.body.api_key.key as string;
      const set = { admin } as Record<Exclude<ApiKeyRole, 'operator'>, string>;
      for (const role of ['member', 'reader'] as const) {
        const made = await baton.request('POST', '/v1/api-keys', { role }, { authorization: `Bearer ${admin}` });
        set[role] = made.body.key;
      }
      keys[slot] = set;
      const agent = await baton.request(
        'POST',
        `/v1/${LOCATION}/apps/${name}/agents?agentId=kept`,
        { displayName: 'Kept', instruction: 'x', modelSettings: { model: 'scripted:auto' } },
        { authorization: `Bearer ${admin}` },
      );
      expect(agent.status, JSON.stringify(agent.body)).toBe(200);
    }
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await baton?.close();
  });

  it('reads for every role; writes need an app admin, app lifecycle an operator', async () => {
    const own = `${LOCATION}/apps/mcp-own`;
    for (const role of ['reader', 'member', 'admin'] as const) {
      const client = await connect(keys.own[role]);
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as ToolResult;
      expect(statusOf(await call('list_agents', { parent: own })), role).toBeUndefined();
      expect(statusOf(await call('get_agent', { name: `${own}/agents/kept` })), role).toBeUndefined();
      const create = await call('create_tool', {
        parent: own,
        toolId: `by-${role}`,
        tool: { clientFunction: { name: `by_${role}`, description: 'x' } },
      });
      expect(statusOf(create), role).toBe(roleAllows(role, 'manage') ? undefined : 'PERMISSION_DENIED');
      const update = await call('update_agent', {
        agent: { name: `${own}/agents/kept`, displayName: `By ${role}` },
        updateMask: 'displayName',
      });
      expect(statusOf(update), role).toBe(roleAllows(role, 'manage') ? undefined : 'PERMISSION_DENIED');
      const app = await call('create_app', { parent: LOCATION, appId: `made-by-${role}`, app: { displayName: 'x' } });
      expect(statusOf(app), role).toBe('PERMISSION_DENIED');
      expect(statusOf(await call('delete_app', { name: `${LOCATION}/apps/mcp-other` })), role).toBe(
        'PERMISSION_DENIED',
      );
    }
  });

  it("answers another app's resources as NOT_FOUND and lists only the key's own app", async () => {
    const other = `${LOCATION}/apps/mcp-other`;
    const client = await connect(keys.own.admin);
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as ToolResult;
    expect(statusOf(await call('list_agents', { parent: other }))).toBe('NOT_FOUND');
    expect(statusOf(await call('get_agent', { name: `${other}/agents/kept` }))).toBe('NOT_FOUND');
    expect(
      statusOf(
        await call('update_agent', {
          agent: { name: `${other}/agents/kept`, displayName: 'Taken' },
          updateMask: 'displayName',
        }),
      ),
    ).toBe('NOT_FOUND');
    expect(statusOf(await call('delete_agent', { name: `${other}/agents/kept` }))).toBe('NOT_FOUND');
    const listed = (await call('list_apps', { parent: LOCATION })) as ToolResult & { structuredContent?: any };
    const names = JSON.parse(listed.content[0]!.text).apps.map((app: { name: string }) => app.name);
    expect(names).toEqual([`${LOCATION}/apps/mcp-own`]);
    const kept = await baton.request('GET', `/v1/${other}/agents/kept`, undefined, {
      authorization: `Bearer ${keys.other.admin}`,
    });
    expect(kept.body.displayName).toBe('Kept');
  });

  it('refuses a reader key on the Responses WebSocket with 403, and admits a member', async () => {
    const open = (key: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(`${baton.url.replace('http', 'ws')}/v1/responses`, {
          headers: { authorization: `Bearer ${key}` },
        });
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('error', () => resolve(-1));
      });
    expect(await open(keys.own.reader)).toBe(403);
    expect(await open(keys.own.member)).toBe(101);
  });
});
