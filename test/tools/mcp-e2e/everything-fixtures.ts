import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'vitest';
import type { BatonConfig } from '../../../src/server/config.ts';
import type { StartOptions } from '../../../src/server/start-baton.ts';
import { startTestBaton, type TestBaton } from '../../helpers/test-baton.ts';

/** Helpers for end-to-end MCP toolset tests: a real server-everything, Baton, and the CES REST API. */

export const APP = 'projects/default/locations/global/apps/default';

export { startEverything, type Everything } from '../../helpers/server-everything.ts';

/** One JSON-RPC message that passed the proxy, with the Authorization header it came with. */
export interface ProxiedCall {
  method: string;
  authorization: string | null;
}

export interface RecordingProxy {
  url: string;
  calls: ProxiedCall[];
  /** HTTP requests still open (an SSE stream stays open until the client ends it). */
  openRequests(): number;
  /** TCP connections from clients still open. */
  openSockets(): number;
  close(): Promise<void>;
}

/**
 * A plain HTTP proxy in front of an MCP server that records the JSON-RPC method and the
 * Authorization header of every POST, and streams answers (SSE included) back unchanged.
 */
export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const target = new URL(upstream);
  const calls: ProxiedCall[] = [];
  const sockets = new Set<Socket>();
  let open = 0;
  const server: Server = createServer((incoming, outgoing) => {
    open += 1;
    outgoing.once('close', () => (open -= 1));
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      if (incoming.method === 'POST') record(calls, body.toString('utf8'), incoming);
      const headers = { ...incoming.headers, host: target.host };
      const forward = httpRequest(
        { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on('error', () => outgoing.destroy());
      outgoing.once('close', () => forward.destroy());
      forward.end(body);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    calls,
    openRequests: () => open,
    openSockets: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function record(calls: ProxiedCall[], text: string, incoming: IncomingMessage): void {
  const authorization = typeof incoming.headers.authorization === 'string' ? incoming.headers.authorization : null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const method = (message as { method?: unknown })?.method;
    if (typeof method === 'string') calls.push({ method, authorization });
  }
}

/** A Baton whose tools may reach loopback (where server-everything runs), with scripted programs. */
export function startMcpBaton(
  scripted: BatonConfig['scripted'],
  options: StartOptions = {},
  overrides: Partial<BatonConfig> = {},
): Promise<TestBaton> {
  return startTestBaton({ scripted, egressAllow: ['127.0.0.1/32'], ...overrides }, options);
}

/** POSTs and expects 200, returning the body. */
export async function ok(baton: TestBaton, path: string, body?: unknown): Promise<any> {
  const response = await baton.request('POST', path, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

export function createToolset(
  baton: TestBaton,
  id: string,
  mcpToolset: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<any> {
  return ok(baton, `/v1/${APP}/toolsets?toolsetId=${id}`, { displayName: id, mcpToolset, ...extra });
}

/** An agent on `scripted:<program>` using the toolset (narrowed to `toolIds` when given). */
export function createAgent(
  baton: TestBaton,
  id: string,
  program: string,
  toolset: string,
  toolIds?: string[],
): Promise<any> {
  return ok(baton, `/v1/${APP}/agents?agentId=${id}`, {
    displayName: id,
    instruction: 'Use the tools.',
    modelSettings: { model: `scripted:${program}` },
    toolsets: [{ toolset: `${APP}/toolsets/${toolset}`, ...(toolIds ? { toolIds } : {}) }],
  });
}

export function retrieveTools(baton: TestBaton, toolset: string, body?: unknown) {
  return baton.request('POST', `/v1/${APP}/toolsets/${toolset}:retrieveTools`, body);
}

export interface Turn {
  /** The final assistant message of the turn (Threads API). */
  reply: any;
  /** Every message of the thread, with `tool_calls` (and their `executor`) and tool results. */
  messages: any[];
}

/** Runs one turn on a new thread of `agent` and returns the reply and the thread's messages. */
export async function ask(baton: TestBaton, agent: string, text: string): Promise<Turn> {
  const thread = await ok(baton, '/v1/threads', { agent });
  const answer = await ok(baton, `/v1/threads/${thread.id}/messages`, { role: 'user', content: text });
  const listed = await baton.request('GET', `/v1/threads/${thread.id}/messages`);
  expect(listed.status).toBe(200);
  return { reply: answer.choices[0], messages: listed.body.data };
}

/** The tool calls of a thread's messages as `[name, executor]`, and the text of each tool result. */
export function serverCalls(messages: any[]): { calls: [string, string][]; results: any[] } {
  const calls = messages.flatMap((message) =>
    (message.tool_calls ?? []).map((call: any) => [call.name, call.executor ?? 'client'] as [string, string]),
  );
  const results = messages.flatMap((message) =>
    Array.isArray(message.content) ? message.content.filter((block: any) => block.type === 'tool_result') : [],
  );
  return { calls, results };
}

/** The text of a tool result block's content (a string, or text parts). */
export function resultText(block: any): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content as any[]).map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('');
}
