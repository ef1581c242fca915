// A client tool executed in a web page: the agent `ui-helper` calls set_theme, highlight_product
// and show_banner, and the page's handlers (app.js) run them by changing the DOM. This server
// serves the page and the SDK's ESM build, and proxies the few API calls the page needs to Baton,
// adding the API key itself, so the key never reaches the browser. Start Baton (`npm start`),
// build the SDK once (`npm run build`), then:
//   BATON_API_KEY=$KEY npx tsx examples/browser-ui-action/server.ts
// and open http://127.0.0.1:8090. BATON_URL defaults to http://127.0.0.1:8080, PORT to 8090;
// MODEL (default scripted:auto) may name a real model.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Baton } from '@baton/client';

const PAGE_DIR = new URL('./', import.meta.url);
const SDK_DIST = new URL('../../packages/client/dist/', import.meta.url);
const MAX_BODY_BYTES = 64 * 1024;

/** The agent behind the page. Its tools are declared here; the page only implements them. */
export const UI_AGENT = {
  name: 'ui-helper',
  model: process.env.MODEL ?? 'scripted:auto',
  instructions: 'You drive the shop page for the user: switch its theme, highlight products, show banners.',
  tools: [
    {
      name: 'set_theme',
      description: 'Switches the page between dark and light mode.',
      parameters: {
        type: 'object',
        properties: { mode: { type: 'string', enum: ['dark', 'light'] } },
        required: ['mode'],
      },
    },
    {
      name: 'highlight_product',
      description: 'Highlights one product card on the page, by its SKU (e.g. TR-100).',
      parameters: {
        type: 'object',
        properties: { sku: { type: 'string', description: 'The product SKU' } },
        required: ['sku'],
      },
    },
    {
      name: 'show_banner',
      description: 'Shows a banner with a short message at the top of the page.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'The message' } },
        required: ['text'],
      },
    },
  ],
};

/** The only API calls the page may make: create a thread of ui-helper, then talk on it. */
const ALLOWED: Array<{ method: string; path: RegExp }> = [
  { method: 'POST', path: /^\/v1\/threads$/ },
  { method: 'GET', path: /^\/v1\/threads\/([\w-]+)$/ },
  { method: 'GET', path: /^\/v1\/threads\/([\w-]+)\/messages$/ },
  { method: 'POST', path: /^\/v1\/threads\/([\w-]+)\/messages$/ },
];

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

export interface UiExample {
  url: string;
  close(): Promise<void>;
}

export async function startUiExample(options: {
  batonUrl: string;
  apiKey: string;
  port?: number;
  host?: string;
}): Promise<UiExample> {
  if (!existsSync(new URL('index.js', SDK_DIST))) throw new Error('packages/client/dist is missing: run npm run build');
  await new Baton({ baseURL: options.batonUrl, apiKey: options.apiKey }).agents.upsert(UI_AGENT);
  const batonOrigin = options.batonUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  // Threads created through this proxy: the only ones it lets the page read or write.
  // (A real app would keep them per signed-in user.)
  const threads = new Set<string>();

  async function proxy(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const route = ALLOWED.find((entry) => entry.method === request.method && entry.path.test(url.pathname));
    const threadId = route?.path.exec(url.pathname)?.[1];
    if (!route || (threadId !== undefined && !threads.has(threadId)))
      return refuse(response, 404, 'not_allowed', `${request.method} ${url.pathname} is not open to this page.`);

    let body: string | undefined;
    if (request.method === 'POST') {
      body = await readBody(request, MAX_BODY_BYTES);
      if (body === undefined)
        return refuse(response, 413, 'body_too_large', `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);
      if (url.pathname === '/v1/threads' && parseJson(body)?.agent !== UI_AGENT.name)
        return refuse(response, 403, 'agent_not_allowed', `This page talks to ${UI_AGENT.name} only.`);
    }
    const upstream = await fetch(`${batonOrigin}${url.pathname}${url.search}`, {
      method: route.method,
      headers: {
        authorization: `Bearer ${options.apiKey}`, // the page sent a placeholder; the real key is added here
        accept: request.headers.accept ?? 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(typeof request.headers['idempotency-key'] === 'string'
          ? { 'idempotency-key': request.headers['idempotency-key'] }
          : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'cache-control', 'retry-after', 'idempotent-replayed', 'x-request-id']) {
      const value = upstream.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    response.writeHead(upstream.status, headers);
    if (url.pathname === '/v1/threads') {
      const text = await upstream.text();
      const id = parseJson(text)?.id;
      if (upstream.ok && typeof id === 'string') threads.add(id);
      response.end(text);
      return;
    }
    // Streamed through, so `stream: true` (Server-Sent Events) works too.
    if (upstream.body) for await (const chunk of upstream.body) response.write(chunk);
    response.end();
  }

  async function serveFile(response: ServerResponse, pathname: string): Promise<void> {
    if (pathname === '/favicon.ico') return void response.writeHead(204).end();
    let file: URL | undefined;
    if (pathname === '/' || pathname === '/index.html') file = new URL('index.html', PAGE_DIR);
    else if (pathname === '/app.js') file = new URL('app.js', PAGE_DIR);
    // The SDK's built ES modules, as the page imports them (/sdk/index.js and what it imports).
    else if (/^\/sdk\/(?:[\w-]+\/)*[\w.-]+\.js$/.test(pathname) && !pathname.includes('..'))
      file = new URL(pathname.slice('/sdk/'.length), SDK_DIST);
    const content = file && (await readFile(file).catch(() => undefined));
    if (!file || content === undefined) return refuse(response, 404, 'not_found', `No ${pathname} here.`);
    response.writeHead(200, {
      'content-type': TYPES[file.pathname.slice(file.pathname.lastIndexOf('.'))] ?? 'application/octet-stream',
      'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'",
    });
    response.end(content);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const work = url.pathname.startsWith('/v1/')
      ? proxy(request, response, url)
      : request.method === 'GET'
        ? serveFile(response, url.pathname)
        : Promise.resolve(refuse(response, 405, 'method_not_allowed', 'GET only.'));
    work.catch((error: unknown) => {
      if (!response.headersSent)
        refuse(response, 502, 'bad_gateway', `Baton did not answer: ${(error as Error).message}`);
      else response.destroy();
    });
  });
  await new Promise<void>((ready) => server.listen(options.port ?? 8090, options.host ?? '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** An error in Baton's own format, so the SDK reports it as a BatonError. */
function refuse(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { type: 'proxy_error', code, message, param: null } }));
}

/** The body as text, or undefined when it is larger than `limit` bytes. */
async function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  if (Number(request.headers['content-length'] ?? 0) > limit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const apiKey = process.env.BATON_API_KEY;
  if (!apiKey) {
    console.error('Set BATON_API_KEY to a Baton API key (the admin key npm start printed, or BATON_ADMIN_KEY).');
    process.exit(1);
  }
  const example = await startUiExample({
    batonUrl: process.env.BATON_URL ?? 'http://127.0.0.1:8080',
    apiKey,
    port: Number(process.env.PORT ?? 8090),
  });
  console.log(
    `Open ${example.url} (agent ${UI_AGENT.name} on ${process.env.BATON_URL ?? 'http://127.0.0.1:8080'}; Ctrl+C stops)`,
  );
}
