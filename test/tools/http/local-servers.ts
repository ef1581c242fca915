import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** A real HTTP(S) server on a random port that records what reached it. */
export interface LocalServer {
  readonly port: number;
  readonly host: string;
  /** `http://127.0.0.1:PORT` (or https). */
  readonly origin: string;
  /** Requests that reached the handler, with their headers. */
  readonly hits: Array<{ url: string; method: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, server: LocalServer) => void;

export async function startServer(
  handler: Handler,
  options: { host?: string; tls?: { key: string; cert: string } } = {},
): Promise<LocalServer> {
  const host = options.host ?? '127.0.0.1';
  const hits: LocalServer['hits'] = [];
  const listener: http.RequestListener = (req, res) => {
    hits.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers });
    // Requests arrive only once `listen` resolved, after `self` is set below.
    handler(req, res, self);
  };
  const server = options.tls ? https.createServer(options.tls, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const self: LocalServer = {
    port,
    host,
    origin: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return self;
}
