import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createHash } from 'node:crypto';
import type { ContentPart, JsonSchema } from '../../domain/records.ts';
import type { EgressPolicy } from '../http/address-policy.ts';
import { guardedFetch } from '../http/guarded-fetch.ts';
import { toToolOutput, type McpCallResult } from './mcp-result.ts';

/** How to reach one MCP toolset's server. */
export interface McpServerTarget {
  serverAddress: string;
  /** Headers sent on every request (CES `customHeaders`, already resolved from session variables). */
  headers?: Record<string, string>;
  /** Which of `headers` carry the toolset's credentials: dropped on a cross-origin redirect, whatever their names. */
  credentialHeaders?: readonly string[];
  policy: EgressPolicy;
  /** Extra CA certificates (PEM or base64 DER) trusted for this server only. */
  ca?: readonly string[];
  /** Connect and response-headers timeout. */
  timeoutMs?: number;
}

export interface McpToolDescription {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

const IDLE_CLOSE_MS = 60_000;

/**
 * The MCP SDK's client side, loaded with the first MCP toolset call: a server whose apps have no
 * MCP toolsets never loads it (start-up time and memory).
 */
let mcpClientModules:
  | Promise<{
      Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
      StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
    }>
  | undefined;
function loadMcpClient() {
  mcpClientModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]).then(([client, transport]) => ({
    Client: client.Client,
    StreamableHTTPClientTransport: transport.StreamableHTTPClientTransport,
  }));
  return mcpClientModules;
}

interface PooledClient {
  client: Client;
  idle: NodeJS.Timeout | undefined;
}

/**
 * MCP clients (official SDK, Streamable HTTP through the egress guard), one connection per
 * server and credentials, reused across calls and closed when idle or on shutdown. Listing tools
 * never sends a bearer token: CES sends it only to execute a tool, so listing must work without it.
 */
export class McpToolsetClients {
  private readonly pool = new Map<string, Promise<PooledClient>>();

  async listTools(target: McpServerTarget): Promise<McpToolDescription[]> {
    return this.withClient(target, undefined, async (client) => {
      const tools: McpToolDescription[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        for (const tool of page.tools)
          tools.push({
            name: tool.name,
            description: tool.description ?? '',
            inputSchema: tool.inputSchema as JsonSchema,
          });
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    });
  }

  async callTool(
    target: McpServerTarget,
    bearerToken: string | undefined,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ output: ContentPart[]; isError: boolean }> {
    return this.withClient(target, bearerToken, async (client) =>
      toToolOutput((await client.callTool({ name, arguments: args }, undefined, { signal })) as McpCallResult),
    );
  }

  async close(): Promise<void> {
    const clients = [...this.pool.values()];
    this.pool.clear();
    await Promise.allSettled(clients.map(async (pooled) => (await pooled).client.close()));
  }

  /** Runs `work` on a pooled client; a broken connection is dropped and tried once more afresh. */
  private async withClient<T>(
    target: McpServerTarget,
    bearerToken: string | undefined,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    const key = poolKey(target, bearerToken);
    for (let attempt = 1; ; attempt++) {
      const pooled = await this.connect(key, target, bearerToken);
      if (pooled.idle) clearTimeout(pooled.idle);
      try {
        return await work(pooled.client);
      } catch (error) {
        if (attempt > 1 || !isConnectionError(error)) throw error;
        this.drop(key);
      } finally {
        pooled.idle = setTimeout(() => this.drop(key), IDLE_CLOSE_MS).unref();
      }
    }
  }

  private connect(key: string, target: McpServerTarget, bearerToken: string | undefined): Promise<PooledClient> {
    let pooled = this.pool.get(key);
    if (!pooled) {
      pooled = (async () => {
        const { Client, StreamableHTTPClientTransport } = await loadMcpClient();
        const headers = { ...target.headers, ...(bearerToken ? { authorization: `Bearer ${bearerToken}` } : {}) };
        const transport = new StreamableHTTPClientTransport(new URL(target.serverAddress), {
          fetch: guardedFetch(target.policy, {
            timeoutMs: target.timeoutMs ?? 10_000,
            ...(target.ca ? { ca: [...target.ca] } : {}),
            credentials: { headers: target.credentialHeaders ?? [] },
          }),
          requestInit: { headers },
        });
        const client = new Client({ name: 'baton', version: '0.1.0' });
        await client.connect(transport);
        return { client, idle: undefined };
      })();
      this.pool.set(key, pooled);
      // A failed connection is not cached: the next call tries again.
      pooled.catch(() => this.pool.delete(key));
    }
    return pooled;
  }

  private drop(key: string): void {
    const pooled = this.pool.get(key);
    this.pool.delete(key);
    void pooled?.then((entry) => entry.client.close()).catch(() => {});
  }
}

function poolKey(target: McpServerTarget, bearerToken: string | undefined): string {
  // Hashed so tokens are not kept as map keys in clear.
  return createHash('sha256')
    .update(
      JSON.stringify([
        target.serverAddress,
        target.headers ?? {},
        target.ca ?? [],
        target.policy.allow,
        bearerToken ?? '',
      ]),
    )
    .digest('hex');
}

function isConnectionError(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /session|ECONNRESET|socket|fetch failed|closed|404/i.test(text);
}
