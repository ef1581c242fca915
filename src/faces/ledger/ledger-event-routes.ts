import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { SseWriter } from '../kit/sse-writer.ts';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import { ledgerEntryView } from '../threads/thread-views.ts';
import type { LedgerChangeFeedSettings } from '../../engine/index.ts';

export const eventsQuery = z
  .object({
    agent: z.string().max(64).optional(),
    tool: z.string().max(64).optional(),
    /** Same as the Last-Event-ID header, for clients that cannot set headers. */
    last_event_id: z.string().max(300).optional(),
  })
  .strict();

const KEEP_ALIVE_MS = 15_000;
// An event id is `<updated_at>|<call id>`: where to resume from after a reconnect.
const EVENT_ID = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z)\|(.{1,200})$/;

function eventId(entry: LedgerEntryRecord): string {
  return `${entry.updatedAt}|${entry.id}`;
}

function parseEventId(value: string): { at: string; id: string } {
  const match = EVENT_ID.exec(value);
  if (!match?.[1] || !match[2]) {
    throw new BatonError(
      'invalid_last_event_id',
      `Last-Event-ID '${value.slice(0, 80)}' is not an id this stream sent; reconnect without it to start from now.`,
      {
        param: 'Last-Event-ID',
      },
    );
  }
  return { at: match[1], id: match[2] };
}

/**
 * `GET /v1/tool-calls/events`: Server-Sent Events of the app's ledger, for inboxes that update
 * live. `tool_call.created` when a call starts waiting, `tool_call.resolved` when it is answered,
 * decided, expired or cancelled; each carries the call as `GET /v1/tool-calls/{id}` shows it.
 */
export function registerLedgerEventRoutes(
  app: FastifyInstance,
  face: FaceContext,
  settings?: LedgerChangeFeedSettings,
): void {
  const feed = face.engine.ledgerChanges(settings, (error) =>
    app.log.error({ err: error }, 'ledger change feed failed'),
  );
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
    feed.close();
  });

  app.get('/v1/tool-calls/events', async (request, reply) => {
    const query = parseRequest(eventsQuery, request.query, 'query');
    const header = request.headers['last-event-id'];
    const lastEventId = typeof header === 'string' && header !== '' ? header : query.last_event_id;
    const resumeFrom = lastEventId !== undefined ? parseEventId(lastEventId) : null;
    const { appId } = request.principal;
    // Each open stream holds a socket and a subscription; past the app's (or the server's) cap, new
    // ones are refused, not queued. The slot is freed when the response closes, however it closes.
    face.streams.acquireUntilClosed(appId, reply.raw);
    const wanted = (entry: LedgerEntryRecord) =>
      (query.agent === undefined || entry.agentName === query.agent) &&
      (query.tool === undefined || entry.toolName === query.tool);

    reply.hijack();
    const writer = new SseWriter(reply.raw);
    const sent = new Set<string>();
    const send = (entries: readonly LedgerEntryRecord[]) => {
      for (const entry of entries) {
        const key = `${entry.id}:${entry.state}`;
        if (!wanted(entry) || sent.has(key)) continue;
        if (sent.size >= 10_000) sent.clear();
        sent.add(key);
        writer.event(
          entry.state === 'pending' ? 'tool_call.created' : 'tool_call.resolved',
          ledgerEntryView(entry),
          eventId(entry),
        );
      }
    };
    // Subscribe before catching up, so nothing falls between the two; `sent` removes overlaps.
    const unsubscribe = feed.subscribe(appId, send);
    const keepAlive = setInterval(() => writer.comment('keep-alive'), KEEP_ALIVE_MS);
    keepAlive.unref();
    const close = () => {
      clearInterval(keepAlive);
      unsubscribe();
      open.delete(close);
      writer.end();
    };
    open.add(close);
    request.raw.once('close', close);
    reply.raw.write('retry: 2000\n\n');
    writer.event('ready', { object: 'tool_call.stream', agent: query.agent ?? null, tool: query.tool ?? null });
    if (resumeFrom) {
      const missed = await feed.changesSince(appId, resumeFrom.at);
      send(
        missed.filter(
          (entry) => entry.updatedAt > resumeFrom.at || (entry.updatedAt === resumeFrom.at && entry.id > resumeFrom.id),
        ),
      );
    }
  });
}
