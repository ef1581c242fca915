import type http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GuardedAgentPool } from '../../../src/tools/http/guarded-agent.ts';
import { guardedFetch } from '../../../src/tools/http/guarded-fetch.ts';
import { startServer, type LocalServer } from './local-servers.ts';
import { egressFailure } from './test-api.ts';

const LOOPBACK = { allow: ['127.0.0.0/8'] };
const agents = new GuardedAgentPool();

let api: LocalServer;
let other: LocalServer;
let releaseSse: () => void = () => undefined;

/** A stateless MCP server: one McpServer + transport per request, as the SDK's examples do. */
async function handleMcp(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const server = new McpServer({ name: 'egress-test', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

beforeAll(async () => {
  api = await startServer((req, res, self) => {
    const url = new URL(req.url ?? '/', self.origin);
    if (url.pathname === '/mcp') {
      void handleMcp(req, res);
    } else if (url.pathname === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: one\n\n');
      releaseSse = () => res.end('data: two\n\n');
    } else if (url.pathname === '/slow-headers') {
      setTimeout(() => res.end('late'), 5_000).unref();
    } else if (url.pathname === '/loop') {
      res.writeHead(307, { location: '/loop' });
      res.end();
    } else if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
      res.end();
    } else {
      res.end('plain');
    }
  });
  other = await startServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(req.headers));
  });
});

afterAll(async () => {
  releaseSse();
  await agents.close();
  await Promise.all([api.close(), other.close()]);
});

describe('guardedFetch', () => {
  it('refuses loopback by default and allows it when configured', async () => {
    const error = await egressFailure(guardedFetch({ allow: [] }, { agents })(`${api.origin}/`));
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain('egress.allow');
    const response = await guardedFetch(LOOPBACK, { agents })(`${api.origin}/`);
    expect(await response.text()).toBe('plain');
  });

  it('streams: the first SSE event is readable before the server finishes, past the headers timeout', async () => {
    const fetchFn = guardedFetch(LOOPBACK, { agents, timeoutMs: 300 });
    const response = await fetchFn(`${api.origin}/sse`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const first = await reader.read();
    expect(first.value).toBe('data: one\n\n');
    // Longer than timeoutMs: the deadline covers connect + headers only, not a quiet stream.
    await new Promise((resolve) => setTimeout(resolve, 600));
    releaseSse();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
    expect(rest).toBe('data: two\n\n');
  });

  it('times out waiting for headers', async () => {
    const started = Date.now();
    const error = await egressFailure(guardedFetch(LOOPBACK, { agents, timeoutMs: 300 })(`${api.origin}/slow-headers`));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('within 300 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('re-checks redirect targets', async () => {
    const to = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
    const error = await egressFailure(guardedFetch(LOOPBACK, { agents })(`${api.origin}/redirect?to=${to}`));
    expect(error.code).toBe('blocked_address');
    expect(error.message).toContain('After 1 redirect(s)');
    expect(error.address).toBe('169.254.169.254');
  });

  it('stops a redirect loop at maxRedirects', async () => {
    const before = api.hits.length;
    const error = await egressFailure(guardedFetch(LOOPBACK, { agents, maxRedirects: 2 })(`${api.origin}/loop`));
    expect(error.code).toBe('too_many_redirects');
    expect(api.hits.length - before).toBe(3);
  });

  it('drops credentials on a cross-origin redirect', async () => {
    const to = encodeURIComponent(`${other.origin}/`);
    const response = await guardedFetch(LOOPBACK, { agents })(`${api.origin}/redirect?to=${to}`, {
      headers: { authorization: 'Bearer t', 'x-trace': 'keep' },
    });
    const seen = (await response.json()) as Record<string, string>;
    expect(seen['x-trace']).toBe('keep');
    expect(seen['authorization']).toBeUndefined();
  });

  it('returns the redirect itself with redirect: "manual" (what the MCP SDK asks for)', async () => {
    const response = await guardedFetch(LOOPBACK, { agents })(`${api.origin}/redirect?to=/elsewhere`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/elsewhere');
  });

  it('is the fetch of the MCP SDK Streamable HTTP client', async () => {
    const client = new Client({ name: 'baton-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${api.origin}/mcp`), {
      fetch: guardedFetch(LOOPBACK, { agents }),
    });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['echo']);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    } finally {
      await client.close();
    }
  });

  it('keeps the MCP SDK client away from a blocked server', async () => {
    const before = api.hits.length;
    const client = new Client({ name: 'baton-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${api.origin}/mcp`), {
      fetch: guardedFetch({ allow: [] }, { agents }),
    });
    await expect(client.connect(transport)).rejects.toThrow(/Refused to connect to 127\.0\.0\.1/);
    expect(api.hits.length).toBe(before);
    await client.close();
  });
});
