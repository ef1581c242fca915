/**
 * A Server-Sent Events parser (the WHATWG "event stream" rules) over a fetch body, so streams
 * can be read with headers EventSource cannot send (Authorization) and on any runtime. It knows
 * nothing of Baton's events: Threads, Responses, CES and the ledger stream all go through it.
 */

export interface SseMessage {
  /** The `event:` field; `message` when the frame had none. */
  event: string;
  /** The `data:` lines, joined with newlines. */
  data: string;
  /** The last `id:` seen so far (ids persist across frames, as for EventSource's lastEventId). */
  id: string | undefined;
  /** A `retry:` hint in milliseconds, when the frame had one. */
  retry: number | undefined;
}

/** Splits decoded text into lines across chunk boundaries; CRLF, LF and lone CR all end a line. */
class LineSplitter {
  private buffer = '';
  private pendingCR = false;

  push(text: string): string[] {
    const lines: string[] = [];
    for (const char of text) {
      if (this.pendingCR) {
        this.pendingCR = false;
        if (char === '\n') continue; // the LF of a CRLF split across chunks
      }
      if (char === '\r' || char === '\n') {
        lines.push(this.buffer);
        this.buffer = '';
        this.pendingCR = char === '\r';
      } else {
        this.buffer += char;
      }
    }
    return lines;
  }
}

/** Folds lines into messages: a blank line dispatches, `:` lines are comments (keep-alives). */
export class SseDecoder {
  private readonly lines = new LineSplitter();
  private data: string[] = [];
  private event = '';
  private retry: number | undefined;
  private lastId: string | undefined;

  push(text: string): SseMessage[] {
    const messages: SseMessage[] = [];
    for (const line of this.lines.push(text)) {
      const message = this.line(line);
      if (message) messages.push(message);
    }
    return messages;
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored, as the spec says
    }
    return null;
  }

  private dispatch(): SseMessage | null {
    const message =
      this.data.length > 0
        ? { event: this.event || 'message', data: this.data.join('\n'), id: this.lastId, retry: this.retry }
        : null;
    this.data = [];
    this.event = '';
    this.retry = undefined;
    return message;
  }
}

/**
 * Reads a byte stream as SSE messages. A frame cut off by the end of the stream is dropped (the
 * spec's rule: only a blank line dispatches). Breaking out of the loop cancels the stream.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const sse = new SseDecoder();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        yield* sse.push(decoder.decode());
        return;
      }
      yield* sse.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
