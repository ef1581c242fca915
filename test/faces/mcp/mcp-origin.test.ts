import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config.ts';
import { ADMIN_KEY, startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';

const LISTED = 'https://console.example.com';
const MCP_ACCEPT = 'application/json, text/event-stream';
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

/**
 * `/mcp` checks `Origin`, as the MCP Streamable HTTP transport requires against DNS rebinding: no
 * Origin (not a browser), loopback origins and `mcp.allowed_origins` pass; any other is a 403 with
 * a JSON-RPC error body, before the body is read.
 */
describe('/mcp: the Origin header', () => {
  let baton: TestBaton;
  beforeAll(async () => {
    baton = await startTestBaton({ mcpAllowedOrigins: [LISTED] });
  });
  afterAll(async () => baton?.close());

  const post = (headers: Record<string, string>, body = TOOLS_LIST) =>
    fetch(`${baton.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        ...headers,
      },
      body,
    });

  async function expectForbidden(response: Response, origin: string) {
    expect(response.status, origin).toBe(403);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(body.error.message).toContain('mcp.allowed_origins');
    expect(body.error.data.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    expect(body.error.data.error.details[0].reason).toBe('ORIGIN_NOT_ALLOWED');
  }

  it.each([
    'http://evil.example.com',
    'https://evil.example.com',
    'null',
    'http://localhost.evil.example.com',
    'http://127.0.0.1.nip.io:8080',
    'http://127.0.0.2:8080',
    'http://console.example.com',
    'https://console.example.com:8443',
    'file://',
    'not a url',
  ])('refuses Origin %s with a 403', async (origin) => {
    await expectForbidden(await post({ origin }), origin);
  });

  it.each([
    'http://localhost:5173',
    'http://localhost',
    'https://localhost:8443',
    'http://127.0.0.1:3000',
    'http://[::1]:8080',
    LISTED,
    'https://CONSOLE.example.com:443',
  ])('accepts Origin %s', async (origin) => {
    const response = await post({ origin });
    expect(response.status, origin).toBe(200);
    expect(((await response.json()) as any).result.tools.length).toBeGreaterThan(0);
  });

  it('accepts a request without Origin (a client that is not a browser)', async () => {
    expect((await post({})).status).toBe(200);
  });

  it('refuses the DNS-rebinding shape (foreign Host and Origin), before reading the body', async () => {
    await expectForbidden(
      await post({ origin: 'http://evil.example.com', host: 'evil.example.com' }, '{not json'),
      'x',
    );
  });

  it('refuses a foreign Origin on GET and DELETE too, rather than answering 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${baton.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, accept: MCP_ACCEPT, origin: 'http://evil.example.com' },
      });
      await expectForbidden(response, method);
    }
  });

  it('authentication comes first: a foreign Origin without a key is a 401', async () => {
    const response = await fetch(`${baton.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, origin: 'http://evil.example.com' },
      body: TOOLS_LIST,
    });
    expect(response.status).toBe(401);
  });

  describe('with the official MCP SDK client', () => {
    const connect = async (origin: string) => {
      const client = new Client({ name: 'origin-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baton.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${ADMIN_KEY}`, origin } },
        }),
      );
      return client;
    };

    it('cannot initialize from a foreign origin', async () => {
      await expect(connect('http://evil.example.com')).rejects.toThrow(/403/);
    });

    it('initializes and lists tools from a loopback or listed origin', async () => {
      for (const origin of ['http://localhost:6274', LISTED]) {
        const client = await connect(origin);
        try {
          expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('list_agents');
        } finally {
          await client.close();
        }
      }
    });
  });
});

describe('mcp.allowed_origins in baton.yaml', () => {
  const load = (yaml: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-origins-'));
    writeFileSync(join(dir, 'baton.yaml'), yaml);
    return () => loadConfig({}, dir);
  };

  it('is read and normalised (default port dropped, host in lower case)', () => {
    const config = load('mcp:\n  allowed_origins: ["https://App.Example.com:443", "http://tools.internal:8080"]\n')();
    expect(config.mcpAllowedOrigins).toEqual(['https://app.example.com', 'http://tools.internal:8080']);
    expect(load('server:\n  port: 0\n')().mcpAllowedOrigins).toEqual([]);
  });

  it.each(['https://app.example.com/console', 'https://app.example.com/', 'app.example.com', 'ftp://x.example', '*'])(
    'refuses %s, naming the entry',
    (origin) => {
      expect(load(`mcp:\n  allowed_origins: ["ok.example", "${origin}"]\n`)).toThrow(/mcp\.allowed_origins\[0\]/);
      expect(load(`mcp:\n  allowed_origins: ["https://ok.example", "${origin}"]\n`)).toThrow(
        /mcp\.allowed_origins\[1\].*is not an origin/,
      );
    },
  );
});
