import { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Engine } from '../../engine/index.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { Principal } from '../../domain/principal.ts';
import { toBatonError } from '../kit/http-errors.ts';
import type { StreamSlots } from '../kit/stream-slots.ts';
import type { ConnectionResponseCache } from '../../engine/index.ts';
import { parseCreateBody } from './create-body.ts';
import { DIALECT_BASES, type ResponsesDialect } from './response-dialect.ts';
import { responsesErrorBody, toResponsesError } from './response-errors.ts';
import type { ResponseService } from './response-service.ts';
import type { CreateResponseBody } from './response-wire.ts';

/**
 * Open Responses WebSocket mode: `GET /v1/responses` (or `/nodexa/v1/responses`) with
 * `Upgrade: websocket`. The client sends `{type:"response.create", ...POST body}`; the server
 * answers with exactly the events the SSE stream carries, one text message each, or with an error
 * envelope `{type:"error", status, error:{code,message,type,param}}` when the turn never started.
 */

/** The dialect of each WebSocket path: `/v1/responses`, and the Nodexa dialect's own (response-dialect.ts). */
const WEBSOCKET_DIALECTS = new Map<string, ResponsesDialect>(
  (Object.entries(DIALECT_BASES) as [ResponsesDialect, string][]).map(([dialect, base]) => [
    `${base}/responses`,
    dialect,
  ]),
);

/** The spec's cap on one connection's life; the client reconnects after it. */
export const CONNECTION_LIMIT_MS = 60 * 60 * 1000;
/**
 * Messages held per connection (the running turn included). Beyond it the socket stops being
 * read, so a client that sends faster than turns run is slowed by TCP, not buffered without end.
 */
const MAX_QUEUED_MESSAGES = 8;
/** How long a closing handshake may take at shutdown before the socket is cut. */
const CLOSE_GRACE_MS = 1_000;

export interface ResponseWebSocketSettings {
  /** Overrides the 60-minute connection limit (tests use a fraction of a second). */
  connectionLimitMs?: number;
}

export interface ResponseWebSocketOptions extends ResponseWebSocketSettings {
  service: ResponseService;
  engine: Engine;
  /** The HTTP API's own key check, on the upgrade request's headers; `address` is the client's, for its failure count. */
  authenticate(headers: IncomingHttpHeaders, address: string | undefined): Promise<Principal>;
  /** Each connection holds one of its app's stream slots until its socket closes. */
  streams: StreamSlots;
  /** The server's body limit, applied to each message. */
  maxPayloadBytes: number;
}

/** The WebSocket error envelope, with the same status, type and code the HTTP face would use. */
export function webSocketErrorEnvelope(error: BatonError): JsonObject {
  return {
    type: 'error',
    status: toResponsesError(error).status,
    error: responsesErrorBody(error).error as unknown as JsonObject,
  };
}

/**
 * JSON.parse keeps `__proto__` as an own key, and copying such an object (zod records do) can
 * set a prototype. The HTTP face refuses these keys (Fastify's onProtoPoisoning/onConstructorPoisoning
 * 'error'); messages get the same rule.
 */
function poisonGuard(key: string, value: unknown): unknown {
  if (
    key === '__proto__' ||
    (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value)
  ) {
    throw new BatonError('invalid_json', `The message contains the forbidden key '${key}'.`);
  }
  return value;
}

/** A client message as a create body: only `response.create`, validated like `POST /v1/responses`. */
export function parseCreateMessage(text: string): CreateResponseBody {
  let message: unknown;
  try {
    message = JSON.parse(text, poisonGuard);
  } catch (error) {
    if (error instanceof BatonError) throw error;
    throw new BatonError(
      'invalid_json',
      `The message is not valid JSON (${(error as Error).message}). Send one JSON object per text ` +
        `message, e.g. {"type":"response.create","model":"scripted:auto","input":"Hello"}.`,
    );
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new BatonError(
      'invalid_message',
      'A message must be a JSON object such as {"type":"response.create","model":"scripted:auto","input":"Hello"}.',
      { param: 'type' },
    );
  }
  const { type, ...fields } = message as Record<string, unknown>;
  if (type !== 'response.create') {
    throw new BatonError(
      'unknown_message_type',
      `Unknown message type ${JSON.stringify(type ?? null)}: the only message a client sends is "response.create".`,
      { param: 'type' },
    );
  }
  // HTTP-only fields. Every WebSocket turn streams on this connection, so a background turn, or a
  // single JSON answer, has no meaning here; saying so beats silently doing something else.
  if (fields['background'] === true) {
    throw new BatonError(
      'background_not_supported',
      'background is not available over WebSocket: a turn streams on the connection that asked for it. Use POST /v1/responses for background responses.',
      {
        param: 'background',
      },
    );
  }
  if (fields['stream'] === false) {
    throw new BatonError(
      'stream_required',
      'Every WebSocket turn streams its events: omit stream, or use POST /v1/responses for one JSON response.',
      { param: 'stream' },
    );
  }
  return parseCreateBody(fields, 'response.create message');
}

/** Binary frames are read as UTF-8 too: some clients send JSON that way, and the parse decides. */
function messageText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}

/** Answers an upgrade with a plain HTTP error, in the Responses error format, and drops the socket. */
function refuse(socket: Duplex, error: BatonError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = toResponsesError(error).status;
  const body = JSON.stringify(responsesErrorBody(error));
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(error.retryAfterSeconds !== null ? [`Retry-After: ${error.retryAfterSeconds}`] : []),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * Accepts WebSocket upgrades on the Fastify server's http server. Upgrades bypass Fastify's
 * routing and hooks, so path, authentication and the size limit are applied here; Fastify's
 * `preClose` hook closes the connections, since an upgraded socket would keep `close()` waiting.
 */
export function registerResponseWebSocket(app: FastifyInstance, options: ResponseWebSocketOptions): void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
  const connections = new Set<ResponseConnection>();
  let closing = false;

  async function accept(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // Until ws owns the socket, a client reset must not become an unhandled 'error' event.
    const onError = (): void => {
      socket.destroy();
    };
    socket.on('error', onError);
    const path = (request.url ?? '').split('?')[0] ?? '';
    const dialect = WEBSOCKET_DIALECTS.get(path);
    if (dialect === undefined) {
      refuse(
        socket,
        new BatonError(
          'route_not_found',
          `No WebSocket endpoint at ${path}: WebSocket mode is on ${[...WEBSOCKET_DIALECTS.keys()].join(' and ')}.`,
        ),
      );
      return;
    }
    if (closing) {
      refuse(socket, new BatonError('server_closing', 'The server is shutting down; reconnect shortly.'));
      return;
    }
    let principal: Principal;
    try {
      principal = await options.authenticate(request.headers, request.socket.remoteAddress);
    } catch (error) {
      const engineError = toBatonError(error, options.maxPayloadBytes);
      if (engineError.kind === 'internal') app.log.error({ err: error }, 'WebSocket authentication failed');
      refuse(socket, engineError);
      return;
    }
    if (socket.destroyed || closing) {
      socket.destroy();
      return;
    }
    try {
      // Held until the socket closes: after the WebSocket closes, or when ws refuses a bad handshake.
      options.streams.acquireUntilClosed(principal.appId, socket);
    } catch (error) {
      refuse(socket, toBatonError(error, options.maxPayloadBytes));
      return;
    }
    socket.off('error', onError);
    // ws answers malformed handshakes itself (405 for a non-GET, 400 for a missing key or version).
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new ResponseConnection(ws, principal, dialect, options, app.log);
      connections.add(connection);
      void connection.finished.then(() => connections.delete(connection));
    });
  }

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    accept(request, socket, head).catch((error: unknown) => {
      app.log.error({ err: error }, 'WebSocket upgrade failed');
      socket.destroy();
    });
  });

  app.addHook('preClose', async () => {
    closing = true;
    await Promise.all([...connections].map((connection) => connection.shutdown()));
    wss.close();
  });
}

/**
 * One client connection: its turns run one at a time in arrival order (a promise chain), and its
 * `store: false` responses live in a cache that is purged when the connection ends.
 */
class ResponseConnection {
  private readonly cache: ConnectionResponseCache;
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private open = true;
  private expired = false;
  private readonly limitTimer: NodeJS.Timeout;
  /** Resolves once the socket closed, the last turn ended and the cache was purged. */
  readonly finished: Promise<void>;
  private markFinished: () => void = () => {};

  constructor(
    private readonly ws: WebSocket,
    private readonly principal: Principal,
    private readonly dialect: ResponsesDialect,
    private readonly options: ResponseWebSocketOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.cache = options.engine.responses.openConnection({ appId: principal.appId, actor: principal.keyId }, log);
    this.finished = new Promise((resolve) => {
      this.markFinished = resolve;
    });
    ws.on('message', (data) => this.receive(data));
    // ws closes the socket itself after an error (a message over maxPayload gets close code 1009).
    ws.on('error', (error) => log.debug({ err: error }, 'WebSocket connection error'));
    ws.once('close', () => this.onClose());
    this.limitTimer = setTimeout(() => this.expire(), options.connectionLimitMs ?? CONNECTION_LIMIT_MS);
    this.limitTimer.unref();
  }

  private receive(data: RawData): void {
    // After the limit the connection only finishes what it had; the limit error tells the client why.
    if (!this.open || this.expired) return;
    const text = messageText(data);
    this.enqueue(() => this.runTurn(text));
  }

  private enqueue(task: () => Promise<void>): void {
    this.queued++;
    if (this.queued >= MAX_QUEUED_MESSAGES && !this.ws.isPaused) this.ws.pause();
    this.tail = this.tail.then(async () => {
      try {
        // Turns still waiting when the client left are not run: nobody would see their events.
        if (this.open) await task();
      } catch (error) {
        this.log.error({ err: error }, 'WebSocket task failed');
      } finally {
        this.queued--;
        if (this.ws.isPaused && this.queued < MAX_QUEUED_MESSAGES) this.ws.resume();
      }
    });
  }

  private async runTurn(text: string): Promise<void> {
    let body: CreateResponseBody;
    try {
      body = parseCreateMessage(text);
    } catch (error) {
      this.sendError(error);
      return;
    }
    let streamed = false;
    const sink = (event: JsonObject): void => {
      streamed = true;
      this.send(event);
    };
    const previousId = body.previous_response_id ?? null;
    try {
      const view = await this.options.service.create(body, {
        appId: this.principal.appId,
        actor: this.principal.keyId,
        idempotencyKey: null,
        sink,
        connection: this.cache,
        dialect: this.dialect,
      });
      // A continuation that failed evicts what it continued (spec: any 4xx/5xx failure).
      if (previousId && view['status'] === 'failed') this.cache.forget(previousId);
    } catch (error) {
      if (previousId) this.cache.forget(previousId);
      // Once events went out, ResponseService already sent `error` + `response.failed`.
      if (!streamed) this.sendError(error);
      else if (!(error instanceof BatonError) || error.kind === 'internal')
        this.log.error({ err: error }, 'WebSocket response failed');
    }
  }

  private send(event: JsonObject): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(event));
  }

  private sendError(error: unknown): void {
    const engineError = toBatonError(error, this.options.maxPayloadBytes);
    if (engineError.kind === 'internal') this.log.error({ err: error }, 'WebSocket response.create failed');
    this.send(webSocketErrorEnvelope(engineError));
  }

  /** The connection limit: turns already received finish, then the client is told and the socket closes. */
  private expire(): void {
    this.expired = true;
    const limit = this.options.connectionLimitMs ?? CONNECTION_LIMIT_MS;
    const spoken = limit % 60_000 === 0 ? `${limit / 60_000} minutes` : `${limit} ms`;
    this.enqueue(async () => {
      this.send(
        webSocketErrorEnvelope(
          new BatonError(
            'websocket_connection_limit_reached',
            `This WebSocket connection reached its limit of ${spoken}; open a new connection to continue (store: false responses do not carry over).`,
          ),
        ),
      );
      this.ws.resume();
      this.ws.close(1000, 'websocket_connection_limit_reached');
    });
  }

  private onClose(): void {
    this.open = false;
    clearTimeout(this.limitTimer);
    // A running turn belongs to the engine and ends on its own; after it, store:false data goes.
    void this.tail
      .then(() => this.cache.close())
      .catch((error: unknown) => this.log.error({ err: error }, 'WebSocket cleanup failed'))
      .finally(() => this.markFinished());
  }

  /** Server shutdown: a close handshake, cut short if the client does not answer. */
  async shutdown(): Promise<void> {
    const cut = setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS);
    if (this.ws.readyState === this.ws.CONNECTING || this.ws.readyState === this.ws.OPEN) {
      this.ws.resume();
      this.ws.close(1001, 'server shutting down');
    }
    await this.finished;
    clearTimeout(cut);
  }
}
