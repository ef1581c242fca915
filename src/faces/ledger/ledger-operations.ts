import { z } from 'zod';
import type { ApiOperation } from '../kit/api-operation.ts';
import { NATIVE_ERRORS } from '../kit/error-body-schemas.ts';
import { listEnvelopeSchema } from '../kit/list-envelope-schema.ts';
import { ledgerEntrySchema, messageResponseSchema } from '../threads/thread-view-schemas.ts';
import { eventsQuery } from './ledger-event-routes.ts';
import { decisionBody, resultBody, toolCallListQuery } from './ledger-routes.ts';
import { claimBody, releaseBody, renewBody } from './worker-routes.ts';

const tag = 'Ledger';
const callId = { id: 'The tool call id (`call_…`), as the model and the client see it.' };

/** What submitting a result or a decision answers: the call, and the turn it resumed if it was the last one. */
const submissionSchema = z
  .object({
    tool_call: ledgerEntrySchema,
    resumed: z.boolean().describe('Whether this answer was the last one the turn waited for, so it ran on.'),
    response: messageResponseSchema.nullable().describe("The resumed turn's reply (as a Threads message), or null."),
  })
  .meta({ id: 'ToolCallSubmission' });

const toolDefinitionSchema = z
  .object({
    object: z.literal('tool_definition'),
    call_id: z.string(),
    kind: z.enum(['client', 'approval', 'client_async', 'server']),
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()).describe("The JSON Schema of the call's arguments."),
    response_schema: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('For a client function: the JSON Schema of the answer it expects (what an answer form is built from).'),
    executor: z.enum(['client', 'worker', 'server']),
  })
  .meta({ id: 'ToolDefinition' });

/** The ledger's routes (ledger-routes.ts, ledger-event-routes.ts, worker-routes.ts), for the API document. */
export const LEDGER_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'POST',
    route: '/v1/tool-calls/claim',
    operationId: 'claimToolCalls',
    summary: 'Claim worker calls',
    description:
      'A tool worker takes at most `max_calls` pending calls of the tools it serves (tools marked `"executor": ' +
      '"worker"`), oldest first, each under a lease that counts as an attempt; with `wait_seconds`, it waits that long ' +
      'for one when none is pending. Each call carries its `lease.token`: renew the lease while the work runs and ' +
      'send the result with it.',
    tag,
    body: { schema: claimBody },
    responses: {
      200: {
        description: 'The claimed calls (possibly none), with their leases.',
        schema: listEnvelopeSchema(ledgerEntrySchema),
      },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/tool-calls/:id/lease',
    operationId: 'renewToolCallLease',
    summary: "Renew a worker's lease",
    description:
      "The worker's heartbeat: extends the lease its token holds by `lease_seconds` from now. 409 `lease_lost` when the token holds it no more.",
    tag,
    pathParams: callId,
    body: { schema: renewBody },
    responses: { 200: { description: 'The call, with its renewed lease.', schema: ledgerEntrySchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/tool-calls/:id/release',
    operationId: 'releaseToolCallLease',
    summary: 'Give a claim back',
    description:
      'Releases an unstarted claim: the call waits for a worker again at once, and the claim counts as no attempt.',
    tag,
    pathParams: callId,
    body: { schema: releaseBody },
    responses: { 200: { description: 'The call, waiting for a worker again.', schema: ledgerEntrySchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/tool-calls',
    operationId: 'listToolCalls',
    summary: 'List tool calls',
    description: "The app's client-executed calls and approvals across conversations, filtered; newest first.",
    tag,
    query: toolCallListQuery,
    responses: { 200: { description: 'A page of calls.', schema: listEnvelopeSchema(ledgerEntrySchema) } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/tool-calls/events',
    operationId: 'streamToolCallEvents',
    summary: 'Stream ledger changes',
    description:
      'Server-Sent Events, for inboxes that update live: `ready` first, then `tool_call.created` when a call starts ' +
      'waiting and `tool_call.resolved` when it is answered, decided, expired or cancelled, each carrying the call. ' +
      'Reconnect with `Last-Event-ID` (or `last_event_id`) to receive what was missed.',
    tag,
    query: eventsQuery,
    responses: {
      200: {
        description: 'The event stream; each event `data` is a LedgerEntry (`ready`: the stream and its filters).',
        mediaType: 'text/event-stream',
        schema: z.string(),
      },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/tool-calls/:id',
    operationId: 'getToolCall',
    summary: 'Get a tool call',
    tag,
    pathParams: callId,
    responses: { 200: { description: 'The call.', schema: ledgerEntrySchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/tool-calls/:id/tool',
    operationId: 'getToolCallTool',
    summary: "Get a call's tool",
    description: "The tool the call was made to: its arguments' schema and, for client functions, the answer's.",
    tag,
    pathParams: callId,
    responses: { 200: { description: 'The tool definition.', schema: toolDefinitionSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/tool-calls/:id/result',
    operationId: 'submitToolCallResult',
    summary: 'Submit one result',
    description:
      'Answers one pending client call. The turn resumes when no call of it is pending any more; a second, ' +
      'different result for the same call is a 409, never a second execution.',
    tag,
    pathParams: callId,
    body: { schema: resultBody },
    responses: { 200: { description: 'The call, and the resumed turn if any.', schema: submissionSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/tool-calls/:id/decision',
    operationId: 'decideApproval',
    summary: 'Decide an approval',
    description:
      'Approves (optionally with edited arguments) or denies a server tool call that waits for a person; a denial ' +
      'reaches the model as an error result with the reason.',
    tag,
    pathParams: callId,
    body: { schema: decisionBody },
    responses: { 200: { description: 'The call, and the resumed turn if any.', schema: submissionSchema } },
    errors: NATIVE_ERRORS,
  },
];
