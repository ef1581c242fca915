import { z } from 'zod';
import type { ApiOperation } from '../kit/api-operation.ts';
import { NATIVE_ERRORS } from '../kit/error-body-schemas.ts';
import { listEnvelopeSchema } from '../kit/list-envelope-schema.ts';
import { auditEventsQuery, bulkExportQuery } from './lifecycle-routes.ts';

const tag = 'Data lifecycle';

const auditEventSchema = z
  .object({
    object: z.literal('audit_event'),
    id: z.string(),
    app_id: z.string(),
    actor: z
      .string()
      .nullable()
      .describe('The key id that acted (for `app.purged`, the key that deleted the app), or `baton:retention`.'),
    action: z.enum([
      'conversation.deleted',
      'conversation.exported',
      'conversations.exported',
      'retention.applied',
      'app.deletion_requested',
      'app.purged',
    ]),
    target: z.string().nullable().describe('The conversation or app acted on; null for app-wide runs.'),
    counts: z.record(z.string(), z.number()).describe('Rows removed (or exported), by table.'),
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    created_at: z.string(),
  })
  .meta({ id: 'AuditEvent' });

/** The lifecycle routes (lifecycle-routes.ts), for the API document. */
export const LIFECYCLE_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'GET',
    route: '/v1/exports/conversations',
    operationId: 'exportConversations',
    summary: "Export the app's conversations",
    description:
      'Every conversation of the app, newest first, as NDJSON: one `baton.conversation-export/v1` document per line ' +
      '(docs/conversation-export.md), streamed as it is read. App admins only; recorded in the audit trail.',
    tag,
    query: bulkExportQuery,
    responses: {
      200: { description: 'One export document per line.', mediaType: 'application/x-ndjson', schema: z.string() },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/audit-events',
    operationId: 'listAuditEvents',
    summary: 'List audit events',
    description:
      "The app's deletions, exports, retention runs and purges, newest first: who (key id), what, when and how many rows. " +
      "An operator key lists another app's with `app_id`, a deleted app's included: its `app.deletion_requested` and " +
      '`app.purged` events (rows removed by table, who deleted it, when it was asked, started and finished) outlive it.',
    tag,
    query: auditEventsQuery,
    responses: { 200: { description: 'A page of audit events.', schema: listEnvelopeSchema(auditEventSchema) } },
    errors: NATIVE_ERRORS,
  },
];
