import { z } from 'zod';
import { conversationExportSchema } from '../kit/conversation-export-view.ts';
import type { ApiOperation } from '../kit/api-operation.ts';
import { OPENAI_ERRORS } from '../kit/error-body-schemas.ts';
import { DIALECT_BASES, type ResponsesDialect } from './response-dialect.ts';
import { compactRequestBody, createResponseBody, inputItemsQuery, retrieveQuery } from './response-wire.ts';

/**
 * The Responses face is Open Responses: its objects, items and streaming events are the
 * specification's, which the document links to instead of describing them again. The request
 * bodies and query strings are Baton's own schemas (what it validates with); the answers are
 * described in words and by reference.
 */
export const OPEN_RESPONSES_DOCS = {
  url: 'https://www.openresponses.org',
  description: 'The Open Responses specification',
};

const responseObject = z
  .looseObject({ id: z.string(), object: z.literal('response'), status: z.string() })
  .describe('An Open Responses `Response` object, plus `baton_run` (the run state: `requires_action` while it waits).');

const DIALECTS: Record<ResponsesDialect, { tag: string; suffix: string; paused: string }> = {
  'open-responses': {
    tag: 'Responses',
    suffix: '',
    paused:
      'A response whose run waits for client tools is `completed` with `function_call` items in `output` (as OpenAI and ' +
      "the spec do), unless the agent's `paused_response_status` is `requires_action`.",
  },
  nodexa: {
    tag: 'Responses (Nodexa dialect)',
    suffix: 'Nodexa',
    paused: 'The same API as `/v1/responses`, except that a response waiting for client tools is `requires_action`.',
  },
};

function dialectOperations(dialect: ResponsesDialect): ApiOperation[] {
  const { tag, suffix, paused } = DIALECTS[dialect];
  const route = `${DIALECT_BASES[dialect]}/responses`;
  const id = { id: 'The response id (`resp_…`).' };
  const common = { tag, errors: OPENAI_ERRORS, externalDocs: OPEN_RESPONSES_DOCS };
  return [
    {
      ...common,
      method: 'POST',
      route,
      operationId: `createResponse${suffix}`,
      summary: 'Create a response',
      description:
        `Runs the agent named by \`model\` (or a provider model) on \`input\`; \`previous_response_id\` continues a ` +
        'conversation, and `function_call_output` items in `input` answer its client tool calls. ' +
        `${paused} The same endpoint takes WebSocket connections (Open Responses WebSocket mode).`,
      body: { schema: createResponseBody.meta({ id: 'CreateResponseBody' }) },
      responses: {
        200: {
          description: 'The response.',
          schema: responseObject,
          eventStream:
            'With `stream: true`: the Open Responses streaming events (`response.created`, `response.output_item.added`, ' +
            '`response.function_call_arguments.delta`/`.done`, `response.completed`, …).',
        },
      },
    },
    {
      ...common,
      method: 'POST',
      route: `${route}/compact`,
      operationId: `compactResponse${suffix}`,
      summary: 'Compact a conversation',
      description: 'Summarises a conversation into compacted input items to continue it with.',
      body: { schema: compactRequestBody.meta({ id: 'CompactResponseBody' }) },
      responses: { 200: { description: 'The compacted input.', schema: z.looseObject({ object: z.string() }) } },
    },
    {
      ...common,
      method: 'GET',
      route: `${route}/:id`,
      operationId: `getResponse${suffix}`,
      summary: 'Get a response',
      description: 'With `stream=true`, replays its events (after `starting_after`, a sequence_number).',
      pathParams: id,
      query: retrieveQuery,
      responses: {
        200: {
          description: 'The response.',
          schema: responseObject,
          eventStream: 'With `stream=true`: its streaming events, replayed from the store.',
        },
      },
    },
    {
      ...common,
      method: 'DELETE',
      route: `${route}/:id`,
      operationId: `deleteResponse${suffix}`,
      summary: 'Delete a response',
      pathParams: id,
      responses: {
        200: {
          description: 'Deleted.',
          schema: z.looseObject({ id: z.string(), object: z.string(), deleted: z.literal(true) }),
        },
      },
    },
    {
      ...common,
      method: 'GET',
      route: `${route}/:id/export`,
      operationId: `exportResponseConversation${suffix}`,
      summary: "Export a response's conversation",
      description:
        'The whole conversation the response belongs to (its chain), as `baton.conversation-export/v1` ' +
        '(docs/conversation-export.md). Recorded in the audit trail.',
      pathParams: id,
      responses: { 200: { description: 'The export.', schema: conversationExportSchema } },
    },
    {
      ...common,
      method: 'POST',
      route: `${route}/:id/cancel`,
      operationId: `cancelResponse${suffix}`,
      summary: 'Cancel a response',
      description: 'Cancels a background or waiting response; its pending tool calls get synthetic results.',
      pathParams: id,
      responses: { 200: { description: 'The cancelled response.', schema: responseObject } },
    },
    {
      ...common,
      method: 'GET',
      route: `${route}/:id/input_items`,
      operationId: `listResponseInputItems${suffix}`,
      summary: "List a response's input items",
      pathParams: id,
      query: inputItemsQuery,
      responses: {
        200: {
          description: 'A page of items.',
          schema: z.looseObject({ object: z.literal('list'), data: z.array(z.looseObject({ type: z.string() })) }),
        },
      },
    },
  ];
}

/** The Responses routes of both dialects (response-routes.ts), for the API document. */
export const RESPONSE_OPERATIONS: readonly ApiOperation[] = (Object.keys(DIALECT_BASES) as ResponsesDialect[]).flatMap(
  dialectOperations,
);
