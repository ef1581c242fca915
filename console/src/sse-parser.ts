/** One Server-Sent Events frame, as the EventSource spec assembles it. */
export interface SseFrame {
  event: string;
  data: string;
  id: string | null;
}

/**
 * An incremental SSE parser for a fetch() body: EventSource cannot send an Authorization
 * header, so the console reads the stream itself. Chunks may split lines anywhere; comments
 * (`: keep-alive`) are skipped; a frame is dispatched on a blank line, as the spec says.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;

  push(chunk: string): SseFrame[] {
    this.buffer += chunk;
    const frames: SseFrame[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
      if (width === 1 && this.buffer[newline] === '\r' && newline === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(newline + width);
      const frame = this.line(line);
      if (frame) frames.push(frame);
    }
    return frames;
  }

  private line(line: string): SseFrame | null {
    if (line === '') {
      if (this.data.length === 0 && this.event === '') return null;
      const frame = { event: this.event === '' ? 'message' : this.event, data: this.data.join('\n'), id: this.id };
      this.event = '';
      this.data = [];
      return frame;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return null;
  }
}
