import type { ServerResponse } from 'node:http';

/**
 * Writes Server-Sent Events on a raw response: one write per frame, LF line endings, a final
 * `data: [DONE]`. Proxies are told not to buffer.
 */
export class SseWriter {
  private closed = false;

  constructor(private readonly response: ServerResponse) {
    // Set one by one (not passed to writeHead), so they can be read back: a draining server finds
    // its event streams by their content type.
    response.setHeader('content-type', 'text/event-stream; charset=utf-8');
    response.setHeader('cache-control', 'no-cache');
    response.setHeader('connection', 'keep-alive');
    response.setHeader('x-accel-buffering', 'no');
    response.writeHead(200);
  }

  /** `id`, when given, is what a reconnecting client sends back as `Last-Event-ID`. */
  event(name: string, data: unknown, id?: string): void {
    if (this.closed || this.response.destroyed) return;
    // Event names and ids are ours, never user input, so they cannot smuggle CR/LF.
    this.response.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment line: keeps idle connections (and the proxies between) from timing out. */
  comment(text: string): void {
    if (this.closed || this.response.destroyed) return;
    this.response.write(`: ${text}\n\n`);
  }

  /** A frame with data only (no event name), for dialects whose clients read `data:` lines alone. */
  data(data: unknown): void {
    if (this.closed || this.response.destroyed) return;
    this.response.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  /** Ends the stream without the `[DONE]` sentinel (Google-style streams end with the connection). */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.response.destroyed) this.response.end();
  }

  done(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.response.destroyed) this.response.end('data: [DONE]\n\n');
  }
}

/**
 * Takes over the response only on the first event, so errors found before anything was streamed
 * (a 409, a bad id) are still answered as ordinary JSON with their status.
 */
export class LazySseWriter {
  private writer: SseWriter | null = null;

  constructor(private readonly reply: { hijack(): void; raw: ServerResponse }) {}

  get started(): boolean {
    return this.writer !== null;
  }

  open(): SseWriter {
    if (!this.writer) {
      this.reply.hijack();
      this.writer = new SseWriter(this.reply.raw);
    }
    return this.writer;
  }
}
