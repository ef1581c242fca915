import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm run build` (also run by `npm install`) writes the console: console/dist. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

// Asset names come from Vite (content-hashed); anything else, including `..`, is not served.
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,200}$/;

// The console is static and talks only to this server: no inline scripts, no third parties.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src " +
    "'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const CONSOLE_ROUTES = new Set(['/console', '/console/', '/console/assets/:name']);

/** True for the console's own routes, which are public: signing in happens inside the page. */
export function isConsoleRoute(routeUrl: string | undefined): boolean {
  return routeUrl !== undefined && CONSOLE_ROUTES.has(routeUrl);
}

/**
 * Serves the approval console (a Vite-built single-page app) under /console. The page holds no
 * data; every API call it makes carries the API key the person signs in with.
 */
export function registerConsoleRoutes(app: FastifyInstance, distDir = CONSOLE_DIST): void {
  // Hashed assets never change under their name, so each is read from disk once.
  const assets = new Map<string, Buffer>();
  const sendFile = async (reply: FastifyReply, file: string, cache: string): Promise<FastifyReply> => {
    let body: Buffer;
    try {
      const known = assets.get(file);
      body = known ?? (await readFile(distDir + file));
      if (!known && file.startsWith('assets/') && assets.size < 1_000) assets.set(file, body);
    } catch {
      return reply
        .status(404)
        .headers(SECURITY_HEADERS)
        .type('text/plain; charset=utf-8')
        .send(
          file === 'index.html'
            ? 'The console is not built: run `npm run build` (npm install also builds it), then reload.'
            : `No console file '${file}'.`,
        );
    }
    return reply
      .headers({ ...SECURITY_HEADERS, 'cache-control': cache })
      .type(CONTENT_TYPES[extname(file)] ?? 'application/octet-stream')
      .send(body);
  };

  // index.html names the current hashed assets, so it is never cached; the assets always are.
  const index = async (_request: unknown, reply: FastifyReply) => sendFile(reply, 'index.html', 'no-cache');
  app.get('/console', index);
  app.get('/console/', index);
  app.get<{ Params: { name: string } }>('/console/assets/:name', async (request, reply) => {
    const { name } = request.params;
    if (!ASSET_NAME.test(name))
      return reply
        .status(404)
        .headers(SECURITY_HEADERS)
        .type('text/plain; charset=utf-8')
        .send(`No console file '${name}'.`);
    return sendFile(reply, `assets/${name}`, 'public, max-age=31536000, immutable');
  });
}
