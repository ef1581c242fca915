import type { FastifyReply, FastifyRequest } from 'fastify';
import { LazySseWriter, type SseWriter } from './sse-writer.ts';
import type { StreamSlots } from './stream-slots.ts';
import './face-request.ts';

/**
 * The request's `Idempotency-Key` reservation, taken from the server's `onSend` hook: a reply a
 * face writes itself (a stream, or a body an SDK writes raw) never reaches that hook, so the face
 * settles the key. Settling happens once; later calls do nothing.
 */
export interface IdempotencySettlement {
  /** Stores the outcome, so a retry with the same key replays it instead of running again. */
  complete(status: number, body: unknown): Promise<void>;
  /** Frees the key: the request failed on our side, or its reply cannot be replayed. */
  release(): Promise<void>;
}

export function takeIdempotency(request: FastifyRequest): IdempotencySettlement {
  let handle = request.idempotency;
  request.idempotency = undefined;
  const settle = () => {
    const current = handle;
    handle = undefined;
    return current;
  };
  return {
    complete: async (status, body) => settle()?.complete(status, JSON.stringify(body)),
    release: async () => settle()?.release(),
  };
}

/**
 * A reply that becomes a Server-Sent Events stream on its first event, so errors found before
 * anything was streamed (a 409, a bad id) are still answered as plain JSON with their status.
 * Once streamed, the outcome settles the request's `Idempotency-Key` exactly here: a finished
 * stream stores the response a retry replays as one JSON body; a failed one frees the key.
 *
 * It holds one of the app's stream slots from construction until the response closes, however it
 * closes; constructing it when the app is at its cap throws `too_many_streams` before anything ran.
 */
export class StreamedReply {
  private readonly sse: LazySseWriter;

  constructor(
    private readonly request: FastifyRequest,
    reply: FastifyReply,
    streams: StreamSlots,
  ) {
    streams.acquireUntilClosed(request.principal.appId, reply.raw);
    this.sse = new LazySseWriter(reply);
  }

  get started(): boolean {
    return this.sse.started;
  }

  /** The stream, opened now if it was not yet. */
  open(): SseWriter {
    return this.sse.open();
  }

  /**
   * The request succeeded: `body` (with `status`) is what a retry with the same key gets, and the
   * stream ends, with `data: [DONE]` or (`closing: 'end'`, Google-style) with the connection only.
   */
  async complete(status: number, body: unknown, closing: 'done' | 'end' = 'done'): Promise<void> {
    // Taken only now: a request refused before it streamed is a plain reply, settled by the server.
    await takeIdempotency(this.request).complete(status, body);
    if (this.sse.started) this.close(closing);
  }

  /** The request failed once streaming: the key is freed and the stream ends. */
  async fail(closing: 'done' | 'end' = 'done'): Promise<void> {
    await takeIdempotency(this.request).release();
    if (this.sse.started) this.close(closing);
  }

  private close(closing: 'done' | 'end'): void {
    const writer = this.sse.open();
    if (closing === 'done') writer.done();
    else writer.end();
  }
}
