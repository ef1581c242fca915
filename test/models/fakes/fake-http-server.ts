import { createServer } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './provider-fake.ts';

/**
 * The HTTP side every provider fake shares, so each fake file holds only its provider's protocol:
 * a server on loopback at a free port that reads each request's whole body, parses it as JSON,
 * records the request, and hands it to the fake. What to answer (routes, rules, envelopes,
 * headers, framing) stays with the fake.
 */

/**
 * Answers one request. `recorded` is already in `requests`; its `body` is the parsed JSON, or
 * undefined when the body was empty or not JSON (`raw` tells which, see `isMalformedJson`).
 */
export type FakeRequestHandler = (
  recorded: RecordedRequest,
  raw: string,
  req: IncomingMessage,
  res: ServerResponse,
) => void;

export interface FakeHttpServer {
  /** `http://127.0.0.1:PORT`; each fake appends its API's version prefix to make its `baseURL`. */
  readonly origin: string;
  /** Every request received, in order, whatever the fake answered. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeHttpServer(handle: FakeRequestHandler): Promise<FakeHttpServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    // No 'error' listener, on purpose: Node then drops the error of an upload the client aborts, which
    // never ends, so it is neither recorded nor answered (and does not fail the test run).
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw === '' ? undefined : (JSON.parse(raw) as unknown);
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
      };
      requests.push(recorded);
      handle(recorded, raw, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // The SDKs' fetch keeps connections alive; without this, close() would wait for them to time out.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Whether the body was sent but is not JSON (JSON.parse never yields undefined, so only a failed parse leaves it so). */
export function isMalformedJson(recorded: RecordedRequest, raw: string): boolean {
  return recorded.body === undefined && raw !== '';
}

/**
 * Sends `payload` as the whole JSON body. Providers differ on the content type's charset and add
 * headers of their own (request ids), so a fake whose provider is not plain `application/json`
 * passes its whole header set.
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: OutgoingHttpHeaders = { 'content-type': 'application/json' },
): void {
  res.writeHead(status, headers);
  res.end(JSON.stringify(payload));
}

/** One server-sent event: an optional `event:` line (Anthropic, OpenAI Responses) and its `data:` line. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Streams `events` with status 200, one write per event, then ends the response. `lineEnd` is the
 * provider's line terminator: Gemini frames its events with `\r\n`, the others with `\n`.
 */
export function writeSse(
  res: ServerResponse,
  headers: OutgoingHttpHeaders,
  events: Iterable<SseEvent>,
  lineEnd: '\n' | '\r\n' = '\n',
): void {
  res.writeHead(200, headers);
  for (const { event, data } of events) {
    res.write(`${event != null ? `event: ${event}${lineEnd}` : ''}data: ${data}${lineEnd}${lineEnd}`);
  }
  res.end();
}
