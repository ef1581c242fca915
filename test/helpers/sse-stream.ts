export interface SseEvent {
  id: string | null;
  event: string;
  data: any;
}

/**
 * An open Server-Sent Events response read frame by frame, so a test can wait for the event it
 * expects (with a deadline) while the stream stays open.
 */
export class SseStream {
  readonly events: SseEvent[] = [];
  private buffer = '';
  private waiters: (() => void)[] = [];
  private ended = false;

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    void this.pump();
  }

  static async open(url: string, headers: Record<string, string>): Promise<SseStream> {
    const controller = new AbortController();
    const response = await fetch(url, { headers, signal: controller.signal });
    return new SseStream(response, controller);
  }

  /** Resolves with the first event (already received or still to come) that matches. */
  async next(match: (event: SseEvent) => boolean, timeoutMs = 5_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      if (this.ended)
        throw new Error(
          `stream ended without the expected event; got ${this.events.map((event) => event.event).join(', ')}`,
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no matching event within ${timeoutMs} ms; got ${this.events.map((event) => event.event).join(', ')}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.controller.abort();
  }

  private async pump(): Promise<void> {
    const reader = this.response.body?.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        if (!reader) break;
        const { value, done } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          this.parseFrame(this.buffer.slice(0, end));
          this.buffer = this.buffer.slice(end + 2);
        }
      }
    } catch {
      // Aborted by close(), or the server went away: either way the stream has ended.
    }
    this.ended = true;
    this.wake();
  }

  private parseFrame(frame: string): void {
    let id: string | null = null;
    let event = 'message';
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length === 0) return;
    this.events.push({ id, event, data: JSON.parse(data.join('\n')) });
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
