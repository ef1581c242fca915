import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy saw of one request, and what Baton answered. */
export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number | null;
  responseHeaders: IncomingHttpHeaders;
  /** How this request was cut, if it was. */
  sabotaged: Sabotage | null;
}

/**
 * `after-response`: Baton gets the request and answers in full, then the client's socket is
 * destroyed before a byte of the answer is relayed (the classic "applied, but the client never
 * heard"). `mid-stream`: the head and the first chunk are relayed, then the socket is destroyed.
 */
export type Sabotage = 'after-response' | 'mid-stream';

/**
 * An HTTP proxy between the SDK and Baton that can break chosen requests, to prove a retry of a
 * submit that was already applied is replayed by the server rather than applied twice.
 */
export class SabotageProxy {
  readonly requests: ProxiedRequest[] = [];
  url = '';
  private server: Server | undefined;

  constructor(
    private readonly target: string,
    private readonly choose: (
      request: { method: string; url: string; body: string },
      seen: readonly ProxiedRequest[],
    ) => Sabotage | null,
  ) {}

  async start(): Promise<this> {
    const target = new URL(this.target);
    this.server = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const method = incoming.method ?? 'GET';
        const url = incoming.url ?? '/';
        const sabotage = this.choose({ method, url, body }, this.requests);
        const record: ProxiedRequest = {
          method,
          url,
          headers: incoming.headers,
          body,
          status: null,
          responseHeaders: {},
          sabotaged: sabotage,
        };
        this.requests.push(record);
        const upstream = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method,
            path: url,
            headers: { ...incoming.headers, host: target.host },
          },
          (response) => {
            record.status = response.statusCode ?? null;
            record.responseHeaders = response.headers;
            if (sabotage === 'after-response') {
              // Let Baton finish (and store the outcome), then hang up on the client without a word.
              response.resume();
              response.on('end', () => incoming.socket.destroy());
              return;
            }
            outgoing.writeHead(response.statusCode ?? 502, response.headers);
            if (sabotage === 'mid-stream') {
              response.once('data', (chunk: Buffer) => {
                outgoing.write(chunk, () => incoming.socket.destroy());
                response.resume();
              });
              return;
            }
            response.pipe(outgoing);
          },
        );
        upstream.on('error', () => outgoing.destroy());
        upstream.end(body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
