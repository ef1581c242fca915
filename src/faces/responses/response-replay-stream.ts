import type { FastifyReply, FastifyRequest } from 'fastify';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { JsonObject } from '../../domain/records.ts';
import type { Engine } from '../../engine/index.ts';
import { StreamedReply } from '../kit/streamed-reply.ts';
import type { StreamSlots } from '../kit/stream-slots.ts';
import type { ResponsesDialect } from './response-dialect.ts';
import { replayEvents, type ReplayedEvents } from './response-replay.ts';
import { responseViewOptions } from './response-service.ts';
import { responseView } from './response-views.ts';

/** How often a running response is read again while a replay follows it. */
const FOLLOW_INTERVAL_MS = 250;
/** A comment line this often keeps an idle stream (and the proxies on its way) open. */
const KEEP_ALIVE_MS = 15_000;

export interface ReplayRequest {
  appId: string;
  id: string;
  include: readonly string[];
  dialect: ResponsesDialect;
  /** Only events with a greater `sequence_number` are sent; -1 sends them all. */
  startingAfter: number;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * `GET /v1/responses/{id}?stream=true[&starting_after=N]`: a stored response's events again, as
 * OpenAI streams a background response again. The events are those a streamed create sent (see
 * `replayEvents`), from after `starting_after`. A response still running gets what it committed,
 * then the rest as it commits (read again every FOLLOW_INTERVAL_MS, so any replica's turn can be
 * followed), until its terminal event. Each stream holds one of the app's stream slots.
 */
export class ResponseReplayStreams {
  /** Streams following a running response, stopped when the server closes. */
  private readonly following = new Set<AbortController>();

  constructor(
    private readonly engine: Engine,
    private readonly streams: StreamSlots,
  ) {}

  async serve(request: FastifyRequest, reply: FastifyReply, replay: ReplayRequest): Promise<void> {
    const replayed = await this.read(replay);
    const last = replayed.events[replayed.events.length - 1];
    const lastNumber = typeof last?.['sequence_number'] === 'number' ? last['sequence_number'] : -1;
    if (replayed.finished && replay.startingAfter > lastNumber) {
      throw new BatonError(
        'invalid_starting_after',
        `starting_after ${replay.startingAfter} is past the last event of response '${replay.id}', ` +
          `whose events are numbered 0 to ${lastNumber}; pass the sequence_number of an event you received.`,
        { param: 'starting_after' },
      );
    }
    const stream = new StreamedReply(request, reply, this.streams);
    let sent = replay.startingAfter;
    const send = (events: readonly JsonObject[]): void => {
      for (const event of events) {
        const number = event['sequence_number'] as number;
        if (number <= sent) continue;
        stream.open().event(String(event['type']), event);
        sent = number;
      }
    };
    // The stream opens at once, even when every event was already seen, so the client knows it is on.
    const writer = stream.open();
    send(replayed.events);
    try {
      if (!replayed.finished) await this.follow(reply, replay, replayed, send, () => writer.comment('keep-alive'));
    } catch (error) {
      request.log.error({ err: error }, 'following a response failed');
      await stream.fail();
      return;
    }
    await stream.complete(200, {});
  }

  /** Sends what a running response commits until it finishes, the client leaves or the server closes. */
  private async follow(
    reply: FastifyReply,
    replay: ReplayRequest,
    first: ReplayedEvents,
    send: (events: readonly JsonObject[]) => void,
    keepAlive: () => void,
  ): Promise<void> {
    const stop = new AbortController();
    this.following.add(stop);
    reply.raw.once('close', () => stop.abort());
    let replayed = first;
    let quietSince = Date.now();
    try {
      while (!replayed.finished && !stop.signal.aborted) {
        await sleep(FOLLOW_INTERVAL_MS, stop.signal);
        if (stop.signal.aborted) break;
        const before = replayed.events.length;
        try {
          replayed = await this.read(replay);
        } catch (error) {
          // Deleted meanwhile (or its app went): nothing more will come.
          if (error instanceof BatonError && error.code === 'response_not_found') break;
          throw error;
        }
        send(replayed.events);
        if (replayed.events.length > before) quietSince = Date.now();
        else if (Date.now() - quietSince >= KEEP_ALIVE_MS) {
          keepAlive();
          quietSince = Date.now();
        }
      }
    } finally {
      this.following.delete(stop);
    }
  }

  private async read(replay: ReplayRequest): Promise<ReplayedEvents> {
    const state = await this.engine.responses.get(replay.appId, replay.id);
    const options = responseViewOptions(state, replay.include, replay.dialect);
    return replayEvents(state, responseView(state, options), options);
  }

  /** Server shutdown: following streams end now (their clients resume with starting_after). */
  closeAll(): void {
    for (const stop of this.following) stop.abort();
  }
}
