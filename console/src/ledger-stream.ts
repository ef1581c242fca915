import { errorFromResponse, withQuery, type ApiClient, type ApiError } from './api-client.ts';
import type { ToolCall } from './api-types.ts';
import { SseParser } from './sse-parser.ts';

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface LedgerStreamHandlers {
  /** Sent after each (re)connection's `ready`: anything missed while away may need a re-read. */
  onReady(): void;
  onCreated(call: ToolCall): void;
  onResolved(call: ToolCall): void;
  onStatus(status: StreamStatus, detail?: string): void;
  /** A 401/403: retrying with the same key is pointless. */
  onFatal(error: ApiError): void;
}

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 15_000;

/**
 * Follows `GET /v1/tool-calls/events` with fetch and a stream reader (so the key travels in a
 * header, not a URL). Drops are retried with exponential backoff plus jitter, and each retry sends
 * the last seen event id as `Last-Event-ID` so the server can replay what happened meanwhile.
 * Returns a function that stops it for good.
 */
export function followLedger(
  client: ApiClient,
  filters: { agent?: string; tool?: string },
  handlers: LedgerStreamHandlers,
): () => void {
  const controller = new AbortController();
  let lastEventId: string | null = null;
  let delay = FIRST_DELAY_MS;
  let stopped = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      controller.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });

  const connectOnce = async (): Promise<void> => {
    const response = await fetch(withQuery('/v1/tool-calls/events', filters), {
      headers: {
        ...client.headers,
        accept: 'text/event-stream',
        ...(lastEventId !== null ? { 'last-event-id': lastEventId } : {}),
      },
      signal: controller.signal,
      cache: 'no-store',
    });
    if (!response.ok || !response.body) {
      const error = await errorFromResponse(response);
      if (response.status === 401 || response.status === 403) {
        stopped = true;
        handlers.onFatal(error);
        if (response.status === 401) client.reportUnauthorized(error);
      }
      // A refused Last-Event-ID would be refused forever: start from now (the list re-read on `ready` covers the gap).
      if (response.status === 400) lastEventId = null;
      throw error;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const frame of parser.push(value)) {
        if (frame.id !== null) lastEventId = frame.id;
        if (frame.event === 'ready') {
          delay = FIRST_DELAY_MS;
          handlers.onStatus('live');
          handlers.onReady();
        } else if (frame.event === 'tool_call.created' || frame.event === 'tool_call.resolved') {
          let call: ToolCall;
          try {
            call = JSON.parse(frame.data) as ToolCall;
          } catch {
            continue; // A garbled frame is skipped rather than ending the subscription.
          }
          if (frame.event === 'tool_call.created') handlers.onCreated(call);
          else handlers.onResolved(call);
        }
      }
    }
  };

  void (async () => {
    handlers.onStatus('connecting');
    while (!stopped && !controller.signal.aborted) {
      let detail: string | undefined;
      try {
        await connectOnce();
        detail = 'the stream ended';
      } catch (error) {
        if (controller.signal.aborted || stopped) break;
        detail = (error as Error).message;
      }
      if (stopped || controller.signal.aborted) break;
      handlers.onStatus('reconnecting', detail);
      await sleep(delay * (0.75 + Math.random() * 0.5));
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
    // After stop() the page that asked is gone: nobody to tell.
    if (!controller.signal.aborted) handlers.onStatus('stopped');
  })();

  return () => {
    stopped = true;
    controller.abort();
  };
}
