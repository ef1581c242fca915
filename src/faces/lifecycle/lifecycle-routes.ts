import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AuditEventRecord } from '../../domain/lifecycle.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { conversationExportView } from '../kit/conversation-export-view.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { pageQuerySchema, toPageRequest } from '../kit/page-query.ts';

export const auditEventsQuery = pageQuerySchema
  .extend({
    limit: z.coerce.number().int().min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').optional(),
    app_id: z
      .string()
      .min(1, 'app_id must be an app id')
      .optional()
      .describe(
        "Operator keys only: another app's id, a deleted one included (its `app.deletion_requested` and `app.purged` " +
          'events outlive it). Other keys list their own app and get 404 `app_not_found` for another.',
      ),
  })
  .strict();
export const bulkExportQuery = z.object({}).strict();

export function auditEventView(event: AuditEventRecord) {
  return {
    object: 'audit_event' as const,
    id: event.id,
    app_id: event.appId,
    actor: event.actor,
    action: event.action,
    target: event.target,
    counts: event.counts,
    details: event.details,
    created_at: event.createdAt,
  };
}

/**
 * Data lifecycle for app admins: the bulk NDJSON export and the audit trail (issue 21); an
 * operator key also lists another app's trail, a deleted app's included, with `?app_id=`.
 */
export function registerLifecycleRoutes(app: FastifyInstance, face: FaceContext): void {
  const { engine } = face;

  // One `baton.conversation-export/v1` document per line, newest conversation first, streamed as read.
  app.get('/v1/exports/conversations', async (request, reply) => {
    parseRequest(bulkExportQuery, request.query, 'query');
    const { appId, keyId } = request.principal;
    const dumps = engine.lifecycle.exportConversations(appId, keyId);
    async function* lines(): AsyncGenerator<string> {
      for await (const dump of dumps) yield `${JSON.stringify(conversationExportView(dump))}\n`;
    }
    return reply.type('application/x-ndjson').send(Readable.from(lines()));
  });

  app.get('/v1/audit-events', async (request) => {
    const query = parseRequest(auditEventsQuery, request.query, 'query');
    const page = await engine.lifecycle.listAuditEvents(request.principal, query.app_id, toPageRequest(query, 20));
    return {
      object: 'list',
      data: page.data.map(auditEventView),
      has_more: page.nextCursor !== null,
      next_cursor: page.nextCursor,
    };
  });
}
