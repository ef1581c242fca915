import { z } from 'zod';
import type { ApiOperation } from '../kit/api-operation.ts';
import { NATIVE_ERRORS } from '../kit/error-body-schemas.ts';
import { listEnvelopeSchema } from '../kit/list-envelope-schema.ts';
import { conversationExportSchema } from '../kit/conversation-export-view.ts';
import { messagesQuery, threadsQuery } from './thread-routes.ts';
import {
  heldResultsSchema,
  ledgerEntrySchema,
  messageResponseSchema,
  messageSchema,
  queuedMessageSchema,
  threadSchema,
} from './thread-view-schemas.ts';
import { createThreadBody, postMessageBody } from './thread-wire.ts';

const tag = 'Threads';
const threadId = { id: 'The thread id (`thread_…`).' };

/** The Threads face's routes (thread-routes.ts), for the API document. */
export const THREAD_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'POST',
    route: '/v1/threads',
    operationId: 'createThread',
    summary: 'Create a thread',
    description: 'A conversation with one agent of the app.',
    tag,
    body: { schema: createThreadBody },
    responses: { 200: { description: 'The new thread.', schema: threadSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/threads',
    operationId: 'listThreads',
    summary: 'List threads',
    description: 'Every conversation of the app (threads, Responses chains, CES sessions), newest first.',
    tag,
    query: threadsQuery,
    responses: { 200: { description: 'A page of threads.', schema: listEnvelopeSchema(threadSchema) } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/threads/:id',
    operationId: 'getThread',
    summary: 'Get a thread',
    description: 'Its status (`pending` while calls wait) and its pending tool calls with their deadlines.',
    tag,
    pathParams: threadId,
    responses: { 200: { description: 'The thread.', schema: threadSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'DELETE',
    route: '/v1/threads/:id',
    operationId: 'deleteThread',
    summary: 'Delete a thread',
    description:
      'Deletes the thread and everything it holds (messages, turns, tool calls, responses, sessions, queued input, ' +
      'idempotency records tied to it) in one transaction; a deleted id is a 404 on every face. A paused turn is ' +
      'closed and its pending calls cancelled first; a running turn is refused with 409 `conversation_running` ' +
      'naming it (cancel it, or wait). Recorded in the audit trail.',
    tag,
    pathParams: threadId,
    responses: {
      200: {
        description: 'Deleted.',
        schema: z.object({ id: z.string(), object: z.literal('thread.deleted'), deleted: z.literal(true) }),
      },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/threads/:id/export',
    operationId: 'exportThread',
    summary: 'Export a thread',
    description:
      'The whole conversation as `baton.conversation-export/v1` (docs/conversation-export.md): messages, tool calls ' +
      'with arguments and results, decisions with who and when, turns. Recorded in the audit trail.',
    tag,
    pathParams: threadId,
    responses: { 200: { description: 'The export.', schema: conversationExportSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/threads/:id/messages',
    operationId: 'listThreadMessages',
    summary: "List a thread's messages",
    description: 'The transcript, oldest first: user messages, assistant replies with their tool calls, tool results.',
    tag,
    pathParams: threadId,
    query: messagesQuery,
    responses: { 200: { description: 'A page of messages.', schema: listEnvelopeSchema(messageSchema) } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/threads/:id/messages',
    operationId: 'postThreadMessage',
    summary: 'Send a message or tool results',
    description:
      'New user input starts a turn; a message of `tool_result` blocks answers the pending calls and resumes it. ' +
      'A turn that pauses answers `finish_reason: "tool_use"` with its `tool_calls`. A message while calls are ' +
      "pending is a 409 listing them, or is queued (202) when the agent's `input_policy` is `queue`.",
    tag,
    pathParams: threadId,
    body: { schema: postMessageBody },
    responses: {
      200: {
        description: "The agent's reply, or the tool calls it waits for.",
        schema: messageResponseSchema,
        eventStream:
          'With `stream: true`: `turn.started`, `message.delta`, `tool_call.created`, `tool_call.delta`, then ' +
          '`message.completed` carrying this body (or `error`).',
      },
      202: {
        description:
          "Queued input (agent `input_policy: queue`), or results held until the turn's other calls are answered " +
          '(agent `partial_results: hold`).',
        schema: z.union([queuedMessageSchema, heldResultsSchema]),
      },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/threads/:id/cancel',
    operationId: 'cancelThread',
    summary: "Cancel a thread's turn",
    description:
      'Cancels the running or paused turn; every pending call gets a synthetic result, so history stays valid.',
    tag,
    pathParams: threadId,
    responses: {
      200: {
        description: 'The thread after the cancel, with the calls it cancelled.',
        schema: threadSchema.extend({
          cancelled_turn_id: z.string(),
          cancelled_tool_calls: z.array(ledgerEntrySchema),
        }),
      },
    },
    errors: NATIVE_ERRORS,
  },
];
