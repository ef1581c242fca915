import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  isHeldResultsOutcome,
  isQueuedOutcome,
  type HeldResultsOutcome,
  type QueuedOutcome,
} from '../../engine/index.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { isErrorCode } from '../../domain/errors/error-catalogue.ts';
import type { EngineEvent } from '../../engine/index.ts';
import type { TurnOutcome } from '../../engine/index.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { nativeErrorBody } from '../kit/http-errors.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { StreamedReply } from '../kit/streamed-reply.ts';
import type { StreamSlots } from '../kit/stream-slots.ts';
import { createThreadBody, parsePostedMessage, postMessageBody } from './thread-wire.ts';
import { ledgerEntryView, messageResponseView, messagesView, threadView } from './thread-views.ts';
import { pageQuerySchema, toPageRequest } from '../kit/page-query.ts';
import { conversationExportView } from '../kit/conversation-export-view.ts';

type ThreadParams = { Params: { id: string } };

// Message cursors are short (`seq:N`, base64url).
export const messagesQuery = pageQuerySchema.extend({ after: z.string().max(200).optional() }).strict();

// Each listed thread's status is derived from its turn and ledger, so pages stay small.
export const threadsQuery = pageQuerySchema
  .extend({
    limit: z.coerce.number().int().min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').optional(),
    agent: z.string().max(64).optional(),
  })
  .strict();

/** A turn that ended in failure is answered as an error, with the ids needed to inspect it. */
function failedTurnError(threadId: string, outcome: TurnOutcome): BatonError | null {
  const { turn } = outcome;
  if (turn.status !== 'failed') return null;
  const code = turn.error && isErrorCode(turn.error.code) ? turn.error.code : 'model_error';
  return new BatonError(code, turn.error?.message ?? 'The turn failed.', {
    details: { thread_id: threadId, turn_id: turn.id },
  });
}

/** A `202`: results kept for some calls while others are still pending (agent `partial_results: hold`). */
export function heldResultsView(threadId: string, outcome: HeldResultsOutcome) {
  return {
    object: 'thread.tool_results.held',
    thread_id: threadId,
    turn_id: outcome.turn.id,
    status: 'pending',
    held_tool_call_ids: outcome.held.map((entry) => entry.id),
    pending_tool_call_ids: outcome.pendingCalls.map((entry) => entry.id),
  };
}

export function queuedView(threadId: string, outcome: QueuedOutcome) {
  return {
    id: outcome.queued.id,
    object: 'thread.message.queued',
    thread_id: threadId,
    status: 'queued',
    pending_tool_call_ids: outcome.pendingCallIds,
    created_at: outcome.queued.createdAt,
  };
}

/** The Threads face: the SipPulse manual-tools dialect, over the engine. */
export function registerThreadRoutes(app: FastifyInstance, face: FaceContext): void {
  const { engine } = face;

  app.post('/v1/threads', async (request) => {
    const body = parseRequest(createThreadBody, request.body);
    const conversation = await engine.createConversation(request.principal.appId, body.agent, body.metadata ?? {});
    return threadView({ conversation, status: 'idle', activeTurn: null, pendingCalls: [] });
  });

  // Every conversation of the app (threads, Responses chains, CES sessions), newest first.
  app.get('/v1/threads', async (request) => {
    const query = parseRequest(threadsQuery, request.query, 'query');
    const page = await engine.listConversations(
      { appId: request.principal.appId, ...(query.agent ? { agentName: query.agent } : {}) },
      toPageRequest(query),
    );
    return {
      object: 'list',
      data: page.data.map(threadView),
      has_more: page.nextCursor !== null,
      next_cursor: page.nextCursor,
    };
  });

  app.get<ThreadParams>('/v1/threads/:id', async (request) =>
    threadView(await engine.getConversationState(request.principal.appId, request.params.id)),
  );

  // Deletes the thread and every row of it; a paused turn's calls are cancelled first, a running turn is a 409.
  app.delete<ThreadParams>('/v1/threads/:id', async (request) => {
    const { appId, keyId } = request.principal;
    await engine.deleteConversation(appId, request.params.id, keyId, { whileRunning: 'refuse', audit: true });
    return { id: request.params.id, object: 'thread.deleted', deleted: true };
  });

  app.get<ThreadParams>('/v1/threads/:id/export', async (request) =>
    conversationExportView(
      await engine.lifecycle.exportConversation(request.principal.appId, request.params.id, request.principal.keyId),
    ),
  );

  app.get<ThreadParams>('/v1/threads/:id/messages', async (request) => {
    const query = parseRequest(messagesQuery, request.query, 'query');
    const page = await engine.listMessages(
      request.principal.appId,
      request.params.id,
      query.limit ?? 100,
      query.after ?? null,
    );
    return {
      object: 'list',
      data: messagesView(page.items),
      has_more: page.nextCursor !== null,
      next_cursor: page.nextCursor,
    };
  });

  app.post<ThreadParams>('/v1/threads/:id/messages', async (request, reply) => {
    const body = parseRequest(postMessageBody, request.body);
    const parsed = parsePostedMessage(body);
    const { appId, keyId } = request.principal;
    const threadId = request.params.id;
    const submission = {
      actor: keyId,
      idempotencyKey: request.idempotency?.key ?? null,
      retriesDeadRun: request.idempotency?.takenOver === true,
    };
    const stream = body.stream === true ? new ThreadStream(request, reply, face.streams) : null;
    try {
      const outcome =
        parsed.kind === 'results'
          ? await engine.submitResultsOrHold(appId, threadId, parsed.results, {
              submission,
              ...(stream ? { listener: stream.listener } : {}),
            })
          : await engine.sendMessage(
              appId,
              threadId,
              { items: [{ type: 'message', role: 'user', content: parsed.content }], options: parsed.options },
              { submission, ...(stream ? { listener: stream.listener } : {}) },
            );
      if (isQueuedOutcome(outcome)) {
        if (stream?.started) return await stream.finish(202, queuedView(threadId, outcome));
        return reply.status(202).send(queuedView(threadId, outcome));
      }
      if (isHeldResultsOutcome(outcome)) {
        if (stream?.started) return await stream.finish(202, heldResultsView(threadId, outcome));
        return reply.status(202).send(heldResultsView(threadId, outcome));
      }
      const failure = failedTurnError(threadId, outcome);
      if (stream?.started) return await stream.finish(200, messageResponseView(threadId, outcome), failure);
      if (failure) throw failure;
      return messageResponseView(threadId, outcome);
    } catch (error) {
      if (stream?.started) return await stream.fail(error);
      throw error;
    }
  });

  app.post<ThreadParams>('/v1/threads/:id/cancel', async (request) => {
    const { turn, cancelledCalls } = await engine.cancel(
      request.principal.appId,
      request.params.id,
      request.principal.keyId,
    );
    const state = await engine.getConversationState(request.principal.appId, request.params.id);
    return {
      ...threadView(state),
      cancelled_turn_id: turn.id,
      cancelled_tool_calls: cancelledCalls.map(ledgerEntryView),
    };
  });
}

/**
 * Streams a turn as SSE. The stream opens lazily, on the first engine event, so input errors
 * found before the turn starts (409 pending, 400 bad id) are still answered as plain JSON.
 */
class ThreadStream {
  private readonly reply: StreamedReply;

  constructor(
    private readonly request: FastifyRequest,
    reply: FastifyReply,
    streams: StreamSlots,
  ) {
    this.reply = new StreamedReply(request, reply, streams);
  }

  get started(): boolean {
    return this.reply.started;
  }

  readonly listener = (event: EngineEvent): void => {
    const writer = this.reply.open();
    switch (event.type) {
      case 'turn.started':
        writer.event('turn.started', { thread_id: event.turn.conversationId, turn_id: event.turn.id });
        break;
      case 'text.delta':
        writer.event('message.delta', { id: event.groupId, delta: { content: event.delta } });
        break;
      case 'call.started':
        writer.event('tool_call.created', {
          message_id: event.groupId,
          id: event.callId,
          type: 'function',
          name: event.name,
        });
        break;
      case 'call.arguments.delta':
        writer.event('tool_call.delta', { id: event.callId, delta: { input: event.delta } });
        break;
      default:
        break;
    }
  };

  async finish(status: number, body: object, failure: BatonError | null = null): Promise<void> {
    const writer = this.reply.open();
    if (failure) writer.event('error', nativeErrorBody(failure));
    writer.event('message.completed', body);
    // A turn that failed is replayed as the error a plain request would have got.
    await this.reply.complete(failure ? 502 : status, failure ? nativeErrorBody(failure) : body);
  }

  async fail(error: unknown): Promise<void> {
    const engineError =
      error instanceof BatonError ? error : new BatonError('internal_error', 'Internal server error while streaming.');
    if (engineError.kind === 'internal') this.request.log.error({ err: error }, 'stream failed');
    this.reply.open().event('error', nativeErrorBody(engineError));
    await this.reply.fail();
  }
}
