import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { FaceContext } from '../kit/face-context.ts';
import type { JsonValue } from '../../domain/records.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { pageQuerySchema, toPageRequest } from '../kit/page-query.ts';
import { registerLedgerEventRoutes } from './ledger-event-routes.ts';
import { registerWorkerRoutes } from './worker-routes.ts';
import { requireToolInScope } from '../../domain/worker-scope.ts';
import { ledgerEntryView, messageResponseView } from '../threads/thread-views.ts';
import { parsePostedMessage, postMessageBody, RESULT_NOT_A_STRING } from '../threads/thread-wire.ts';

export const toolCallListQuery = pageQuerySchema
  .extend({
    state: z.enum(['pending', 'completed', 'failed', 'denied', 'expired', 'cancelled']).optional(),
    agent: z.string().max(64).optional(),
    thread_id: z.string().max(200).optional(),
    tool: z.string().max(64).optional(),
    created_before: z.iso
      .datetime({ offset: true, error: 'created_before must be an ISO 8601 time, e.g. 2026-01-01T12:00:00Z' })
      .optional(),
  })
  .strict();

export const resultBody = z
  .object({
    content: z
      .union([z.string(), z.array(z.record(z.string(), z.unknown()))], { error: RESULT_NOT_A_STRING })
      .optional(),
    is_error: z.boolean().optional(),
    /** A tool worker's result: accepted only while this token holds the call's lease (docs/tool-workers.md). */
    lease_token: z.string().min(1).max(200).optional(),
  })
  .strict();

/** A decision on an approval: approve (optionally with edited arguments) or deny, with a reason. */
export const decisionBody = z
  .object({
    approve: z.boolean(),
    reason: z.string().max(2_000).optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * The ledger face: pending calls as first-class records, across conversations. This is what an
 * approval inbox or a worker fleet reads, and how results arrive one call at a time.
 */
export function registerLedgerRoutes(app: FastifyInstance, face: FaceContext): void {
  const { engine } = face;
  registerLedgerEventRoutes(app, face);
  registerWorkerRoutes(app, face);

  app.get('/v1/tool-calls', async (request) => {
    const query = parseRequest(toolCallListQuery, request.query, 'query');
    const page = await engine.listCalls(
      {
        appId: request.principal.appId,
        ...(query.state ? { state: query.state } : {}),
        ...(query.agent ? { agentName: query.agent } : {}),
        ...(query.thread_id ? { conversationId: query.thread_id } : {}),
        ...(query.tool ? { toolName: query.tool } : {}),
        // Stored times are UTC ISO strings, so the bound is normalised the same way to compare as text.
        ...(query.created_before ? { createdBefore: new Date(query.created_before).toISOString() } : {}),
      },
      toPageRequest(query),
    );
    return {
      object: 'list',
      data: page.data.map(ledgerEntryView),
      has_more: page.nextCursor !== null,
      next_cursor: page.nextCursor,
    };
  });

  // The tool a call was made to: its arguments' schema and, for client functions, the schema
  // of the answer it expects (what an answer form is built from).
  app.get<{ Params: { id: string } }>('/v1/tool-calls/:id/tool', async (request) => {
    const { entry, tool } = await engine.getCallTool(request.principal.appId, request.params.id);
    requireToolInScope(request.principal, entry.toolName, null);
    return {
      object: 'tool_definition',
      call_id: entry.id,
      kind: entry.kind,
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      response_schema: tool.responseSchema ?? null,
      executor: tool.server || tool.system ? 'server' : tool.executor === 'worker' ? 'worker' : 'client',
    };
  });

  app.get<{ Params: { id: string } }>('/v1/tool-calls/:id', async (request) => {
    const entry = await engine.getCall(request.principal.appId, request.params.id);
    requireToolInScope(request.principal, entry.toolName, null);
    return ledgerEntryView(entry);
  });

  app.post<{ Params: { id: string } }>('/v1/tool-calls/:id/result', async (request) => {
    const body = parseRequest(resultBody, request.body);
    // The result block has the same shape as a tool_result block of the Threads API.
    const message = parseRequest(postMessageBody, {
      content: [
        {
          type: 'tool_result',
          tool_call_id: request.params.id,
          ...(body.content !== undefined ? { content: body.content } : {}),
          ...(body.is_error !== undefined ? { is_error: body.is_error } : {}),
        },
      ],
    });
    const parsed = parsePostedMessage(message);
    if (parsed.kind !== 'results' || !parsed.results[0])
      throw new Error('unreachable: a tool_result block parses as results');
    const submission = { actor: request.principal.keyId, idempotencyKey: request.idempotency?.key ?? null };
    if (body.lease_token !== undefined || request.principal.toolScope) {
      // A worker's result: fenced by its lease, and the turn runs on without the worker waiting for it.
      const { entry, resumed } = await engine.workers.submit(
        request.principal,
        request.params.id,
        body.lease_token ?? '',
        { output: parsed.results[0].output, isError: parsed.results[0].isError },
        submission,
      );
      return { tool_call: ledgerEntryView(entry), resumed, response: null };
    }
    const { entry, outcome } = await engine.submitCallResult(
      request.principal.appId,
      request.params.id,
      { output: parsed.results[0].output, isError: parsed.results[0].isError },
      { submission: { actor: request.principal.keyId, idempotencyKey: request.idempotency?.key ?? null } },
    );
    return {
      tool_call: ledgerEntryView(entry),
      resumed: outcome !== null,
      response: outcome ? messageResponseView(entry.conversationId, outcome) : null,
    };
  });

  app.post<{ Params: { id: string } }>('/v1/tool-calls/:id/decision', async (request) => {
    const body = parseRequest(decisionBody, request.body);
    const { entry, outcome } = await engine.decideApproval(
      request.principal.appId,
      request.params.id,
      {
        approve: body.approve,
        ...(body.reason !== undefined ? { reason: body.reason } : {}),
        ...(body.arguments !== undefined ? { arguments: body.arguments as JsonValue } : {}),
      },
      { submission: { actor: request.principal.keyId, idempotencyKey: request.idempotency?.key ?? null } },
    );
    return {
      tool_call: ledgerEntryView(entry),
      resumed: outcome !== null,
      response: outcome ? messageResponseView(entry.conversationId, outcome) : null,
    };
  });
}
