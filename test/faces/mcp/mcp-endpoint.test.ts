import Fastify, { type FastifyInstance } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatonError } from '../../../src/domain/errors/baton-error.ts';
import { googleErrorBody } from '../../../src/faces/ces/ces-errors.ts';
import { registerMcpEndpoint } from '../../../src/faces/mcp/mcp-endpoint.ts';
import type { McpTool } from '../../../src/faces/mcp/mcp-tool.ts';
import { ApiKeyCache } from '../../../src/resources/keys/api-key-cache.ts';
import { createApiKey } from '../../../src/resources/keys/api-keys.ts';
import { ensureDefaultApp } from '../../../src/resources/apps/app-records.ts';
import { authenticate } from '../../../src/server/authenticate.ts';
import { type Principal } from '../../../src/domain/principal.ts';
import type { ErrorRenderer } from '../../../src/faces/kit/face-context.ts';
import { nativeErrorBody, toBatonError } from '../../../src/faces/kit/http-errors.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';

const KEY = 'bk_mcp_test_member_key_0123456789';
const BODY_LIMIT = 16_384;
const MCP_ACCEPT = 'application/json, text/event-stream';

/** The CES face's google.rpc.Status renderer, as Baton wires it. */
const renderRpcStatus = (error: BatonError): object => googleErrorBody(error).body;

const getAgentSchema = {
  type: 'object' as const,
  properties: {
    name: {
      type: 'string',
      description: 'Resource name, projects/{p}/locations/{l}/apps/{a}/agents/{agent}.',
      minLength: 1,
    },
    view: { type: 'string', enum: ['BASIC', 'FULL'] },
  },
  required: ['name'],
  additionalProperties: false,
};

const TOOLS: McpTool[] = [
  {
    name: 'get_agent',
    title: 'Get agent',
    description: 'Returns one agent by resource name.',
    inputSchema: getAgentSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    capability: 'read',
    handler: async (args, principal) => ({
      name: args['name'],
      view: args['view'] ?? 'BASIC',
      displayName: 'Support',
      calledBy: principal.appId,
      role: principal.role,
    }),
  },
  {
    name: 'delete_agent',
    description: 'Deletes an agent.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    capability: 'use',
    handler: async (args) => {
      throw new BatonError(
        'agent_not_found',
        `No agent found with name '${String(args['name'])}'. Call list_agents to see the agents.`,
        { param: 'name' },
      );
    },
  },
  {
    name: 'list_names',
    description: 'Returns a bare array.',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    capability: 'read',
    handler: async () => ['a', 'b'],
  },
  {
    name: 'crash',
    description: 'Fails with a non-engine error.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    capability: 'read',
    handler: async () => {
      throw new Error('db password is hunter2');
    },
  },
];

interface LogLine {
  level: number;
  msg: string;
  err?: { message: string };
  tool?: string;
}

/** A Fastify app with Baton's auth (real key store), error mapping per prefix, and the MCP endpoint. */
async function startAdapterApp(store: Store): Promise<{ app: FastifyInstance; url: string; logged: LogLine[] }> {
  const logged: LogLine[] = [];
  // Error logs are captured so the test sees non-engine errors logged (with their message) but not sent.
  const app = Fastify({
    logger: { level: 'error', stream: { write: (line: string) => logged.push(JSON.parse(line) as LogLine) } },
    bodyLimit: BODY_LIMIT,
  });
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('idempotency', undefined);
  const keys = new ApiKeyCache(store);
  app.addHook('onRequest', async (request) => {
    request.principal = await authenticate(keys, request);
  });
  const formats: { prefix: string; render: ErrorRenderer }[] = [];
  app.setErrorHandler(async (error, request, reply) => {
    const engineError = toBatonError(error, BODY_LIMIT);
    const render =
      formats.find((format) => request.url.startsWith(format.prefix))?.render ??
      ((e: BatonError) => ({ status: e.status, body: nativeErrorBody(e) }));
    const { status, body } = render(engineError);
    return reply.status(status).send(body);
  });
  registerMcpEndpoint(app, {
    tools: () => TOOLS,
    serverInfo: { name: 'baton-test', version: '9.9.9' },
    renderError: renderRpcStatus,
    useErrorFormat: (prefix, render) => formats.push({ prefix, render }),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, logged };
}

async function connectClient(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-endpoint-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

async function post(
  url: string,
  body: string | object,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

function firstText(result: object): string {
  const content = (result as { content: { type: string; text: string }[] }).content;
  expect(content[0]?.type).toBe('text');
  return content[0]!.text;
}

describe('MCP endpoint adapter (dummy tools on a fresh Fastify with Baton auth)', () => {
  let store: Store;
  let appId: string;
  let server: { app: FastifyInstance; url: string; logged: LogLine[] };
  let client: Client;

  beforeAll(async () => {
    store = await openStore({ kind: 'sqlite', filename: ':memory:' });
    appId = await ensureDefaultApp(store);
    await createApiKey(store, appId, KEY, 'member', 'mcp test');
    server = await startAdapterApp(store);
    client = await connectClient(server.url, KEY);
  });
  afterAll(async () => {
    await client?.close();
    await server?.app.close();
    await store?.close();
  });

  describe('with the SDK client', () => {
    it('initializes with the server info and the tools capability', () => {
      expect(client.getServerVersion()).toEqual({ name: 'baton-test', version: '9.9.9' });
      expect(client.getServerCapabilities()?.tools).toBeDefined();
    });

    it('lists tools with their names, descriptions, JSON Schemas and annotations exactly', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['get_agent', 'delete_agent', 'list_names', 'crash']);
      const getAgent = tools[0]!;
      expect(getAgent.title).toBe('Get agent');
      expect(getAgent.description).toBe('Returns one agent by resource name.');
      expect(getAgent.inputSchema).toEqual(getAgentSchema);
      expect(getAgent.annotations).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(tools[1]!.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(tools[1]!.title).toBeUndefined();
    });

    it('calls a tool: structuredContent is the result, the text is the same JSON, the handler saw the principal', async () => {
      const result = await client.callTool({
        name: 'get_agent',
        arguments: { name: 'projects/p/locations/l/apps/a/agents/x' },
      });
      const expected = {
        name: 'projects/p/locations/l/apps/a/agents/x',
        view: 'BASIC',
        displayName: 'Support',
        calledBy: appId,
        role: 'member',
      };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(expected);
      expect(JSON.parse(firstText(result))).toEqual(expected);
      expect(firstText(result)).toBe(JSON.stringify(expected, null, 2));
    });

    it('a non-object result is text only, without structuredContent', async () => {
      const result = await client.callTool({ name: 'list_names', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toBeUndefined();
      expect(JSON.parse(firstText(result))).toEqual(['a', 'b']);
    });

    it("an BatonError from the handler is a tool error carrying the caller's rendered body", async () => {
      const result = await client.callTool({ name: 'delete_agent', arguments: { name: 'agents/nope' } });
      expect(result.isError).toBe(true);
      const expected = renderRpcStatus(
        new BatonError(
          'agent_not_found',
          "No agent found with name 'agents/nope'. Call list_agents to see the agents.",
          { param: 'name' },
        ),
      );
      expect(JSON.parse(firstText(result))).toEqual(expected);
      expect(JSON.parse(firstText(result)).error.status).toBe('NOT_FOUND');
    });

    it('any other error is logged and rendered as an internal error without its message or stack', async () => {
      const before = server.logged.length;
      const result = await client.callTool({ name: 'crash', arguments: {} });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain(' at ');
      expect(JSON.parse(text).error).toMatchObject({ code: 500, status: 'INTERNAL' });
      expect(server.logged.slice(before)).toEqual([
        expect.objectContaining({
          msg: 'MCP tool failed',
          tool: 'crash',
          err: expect.objectContaining({ message: 'db password is hunter2' }),
        }),
      ]);
    });

    it('invalid arguments are a tool error naming the fields, before the handler runs', async () => {
      const missing = await client.callTool({ name: 'get_agent', arguments: {} });
      expect(missing.isError).toBe(true);
      const body = JSON.parse(firstText(missing));
      expect(body.error.status).toBe('INVALID_ARGUMENT');
      expect(body.error.code).toBe(400);
      expect(body.error.message).toContain("Invalid arguments for tool 'get_agent'");
      expect(body.error.message).toContain("'name' is required");
      const badRequest = body.error.details.find((detail: { '@type': string }) =>
        detail['@type'].endsWith('google.rpc.BadRequest'),
      );
      expect(badRequest.fieldViolations[0].field).toBe('name');

      const wrong = await client.callTool({ name: 'get_agent', arguments: { name: 5, view: 'HUGE', colour: 'red' } });
      expect(wrong.isError).toBe(true);
      const message: string = JSON.parse(firstText(wrong)).error.message;
      expect(message).toContain("'name' must be string");
      expect(message).toContain("'view' must be equal to one of the allowed values");
      expect(message).toContain('"BASIC", "FULL"');
      expect(message).toContain("'colour' is not a known argument");
    });

    it('an unknown tool is a tool error (isError) listing the available tools, not a JSON-RPC error', async () => {
      const result = await client.callTool({ name: 'create_toolset', arguments: {} });
      expect(result.isError).toBe(true);
      const body = JSON.parse(firstText(result));
      expect(body.error.status).toBe('NOT_FOUND');
      expect(body.error.message).toContain("Unknown tool 'create_toolset'");
      expect(body.error.message).toContain('get_agent, delete_agent, list_names, crash');
    });
  });

  describe('over raw HTTP', () => {
    it("the seed's curl works without initialize and answers plain JSON (no SSE, no session)", async () => {
      const response = await post(server.url, {
        method: 'tools/call',
        params: { name: 'get_agent', arguments: { name: 'agents/x', view: 'FULL' } },
        jsonrpc: '2.0',
        id: 1,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.headers.get('mcp-session-id')).toBeNull();
      expect(response.json).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: { structuredContent: { name: 'agents/x', view: 'FULL' } },
      });
      expect(JSON.parse(response.json.result.content[0].text)).toEqual(response.json.result.structuredContent);
    });

    it('tools/list and initialize work as single stateless requests', async () => {
      const list = await post(server.url, { jsonrpc: '2.0', id: 'a', method: 'tools/list' });
      expect(list.status).toBe(200);
      expect(list.json.result.tools).toHaveLength(4);
      const init = await post(server.url, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } },
      });
      expect(init.status).toBe(200);
      expect(init.json.result).toMatchObject({
        protocolVersion: '2025-06-18',
        serverInfo: { name: 'baton-test' },
        capabilities: { tools: {} },
      });
      expect(init.headers.get('mcp-session-id')).toBeNull();
    });

    it('concurrent requests with the same JSON-RPC id do not interfere (a transport per request)', async () => {
      const names = Array.from({ length: 8 }, (_, index) => `agents/${index}`);
      const responses = await Promise.all(
        names.map((name) =>
          post(server.url, {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'get_agent', arguments: { name } },
          }),
        ),
      );
      expect(responses.map((response) => response.json.result.structuredContent.name)).toEqual(names);
    });

    it('a notification is accepted with 202 and no body', async () => {
      const response = await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(response.status).toBe(202);
      expect(response.text).toBe('');
    });

    it('an unknown JSON-RPC method is -32601 from the SDK', async () => {
      const response = await post(server.url, { jsonrpc: '2.0', id: 7, method: 'resources/list' });
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
    });

    it('a tools/call whose params break the CallToolRequest schema is a JSON-RPC -32602 (not the SDK default -32603)', async () => {
      for (const params of [{ name: 'get_agent', arguments: 'name=x' }, undefined, { arguments: {} }]) {
        const response = await post(server.url, {
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          ...(params === undefined ? {} : { params }),
        });
        expect(response.status).toBe(200);
        expect(response.json).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32602 } });
      }
    });

    it('a missing or wrong API key is 401 with a JSON-RPC error and WWW-Authenticate: Bearer', async () => {
      for (const authorization of [undefined, 'Bearer bk_wrong']) {
        const response = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: MCP_ACCEPT,
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
        const body = (await response.json()) as { error: { message: string } };
        expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 }, id: null });
        expect(body.error.message).toMatch(/API key/);
      }
    });

    it('the SDK client without a key fails to connect', async () => {
      const anonymous = new Client({ name: 'anon', version: '1' });
      await expect(
        anonymous.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`))),
      ).rejects.toThrow();
    });

    it('malformed JSON is a -32700 parse error with 400', async () => {
      const response = await post(server.url, '{"jsonrpc":"2.0", "id": 1, "method": ');
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
    });

    it('JSON that is not JSON-RPC is a -32600 invalid request with 400', async () => {
      for (const body of [
        '{"hello":"world"}',
        '[1,2]',
        '[]',
        '"tools/list"',
        'null',
        '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      ]) {
        const response = await post(server.url, body);
        expect(response.status, body).toBe(400);
        expect(response.json, body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
      }
    });

    it('a body over the limit is a JSON-RPC error with 413', async () => {
      const response = await post(server.url, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_agent', arguments: { name: 'x'.repeat(BODY_LIMIT) } },
      });
      expect(response.status).toBe(413);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
    });

    it('a client that does not Accept both JSON and SSE gets the SDK 406 (the spec requires both)', async () => {
      const response = await post(
        server.url,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { accept: 'application/json' },
      );
      expect(response.status).toBe(406);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    });

    it('GET, DELETE, PUT and PATCH are 405 with a JSON-RPC error (stateless: no SSE stream, no sessions)', async () => {
      for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
        const response = await fetch(`${server.url}/mcp`, {
          method,
          headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' },
        });
        expect(response.status, method).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
        expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
      }
    });
  });
});
