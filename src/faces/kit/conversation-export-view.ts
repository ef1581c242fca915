import { z } from 'zod';
import type { ConversationDump } from '../../engine/index.ts';
import type { ContentPart, ItemRecord, LedgerEntryRecord } from '../../domain/records.ts';

/**
 * `baton.conversation-export/v1`: a whole conversation as JSON, the same on every face (Threads,
 * Responses, CES) and in the NDJSON bulk export. Documented in docs/conversation-export.md; a
 * change that is not purely additive needs a new version.
 */
export const CONVERSATION_EXPORT_SCHEMA = 'baton.conversation-export/v1';

const contentPartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), media_type: z.string(), data: z.string() }),
  z.object({
    type: z.literal('file'),
    media_type: z.string(),
    data: z.string().nullable(),
    url: z.string().nullable(),
    filename: z.string().nullable(),
  }),
]);

const itemBase = {
  id: z.string(),
  seq: z.number().int(),
  turn_id: z.string(),
  group_id: z.string().describe('Items of one message: an assistant reply with its calls, or one results message.'),
  created_at: z.string(),
};

const exportItemSchema = z.discriminatedUnion('type', [
  z.object({
    ...itemBase,
    type: z.literal('message'),
    role: z.enum(['user', 'assistant', 'system']),
    content: z.array(contentPartSchema),
    phase: z.enum(['commentary', 'final_answer']).optional(),
  }),
  z.object({ ...itemBase, type: z.literal('reasoning'), text: z.string() }),
  z.object({
    ...itemBase,
    type: z.literal('function_call'),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string().describe('The arguments as the JSON text the model wrote.'),
    executor: z.enum(['client', 'invalid', 'system', 'server', 'fake']),
  }),
  z.object({
    ...itemBase,
    type: z.literal('function_call_output'),
    call_id: z.string(),
    name: z.string(),
    output: z.array(contentPartSchema),
    is_error: z.boolean(),
    synthetic: z.boolean().describe('Baton wrote it (cancel, expiry, invalid arguments).'),
  }),
]);

const toolCallSchema = z.object({
  id: z.string(),
  turn_id: z.string(),
  agent: z.string(),
  tool: z.string(),
  kind: z.string().describe('`client`, `client_async`, `approval` or `server`.'),
  executor: z.enum(['client', 'worker']),
  arguments: z.unknown().describe('Null once a retention policy removed them.'),
  arguments_hash: z.string(),
  state: z.enum(['pending', 'completed', 'failed', 'denied', 'expired', 'cancelled']),
  result: z.object({ content: z.array(contentPartSchema), is_error: z.boolean() }).nullable(),
  deadline_at: z.string().nullable(),
  timeout_policy: z.string(),
  submitted_by: z.string().nullable().describe('The key id (or `baton:…` actor) that answered or decided the call.'),
  submitted_at: z.string().nullable(),
  attempts: z.number().int().nullable().describe('Worker claims of a worker call; null for other calls.'),
  created_at: z.string(),
  updated_at: z.string(),
});

const turnSchema = z.object({
  id: z.string(),
  status: z.string(),
  agent_id: z.string(),
  agent_version: z.number().int(),
  finish_reason: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  step_count: z.number().int(),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number() }),
  created_at: z.string(),
  updated_at: z.string(),
  completed_at: z.string().nullable(),
});

export const conversationExportSchema = z
  .object({
    schema: z.literal(CONVERSATION_EXPORT_SCHEMA),
    conversation: z.object({
      id: z.string().describe('The thread id (`thread_…`), shared by the Threads, Responses and CES views of it.'),
      app_id: z.string(),
      agent: z.object({ id: z.string(), name: z.string() }),
      metadata: z.record(z.string(), z.string()),
      created_at: z.string(),
      updated_at: z.string(),
    }),
    session: z
      .object({
        id: z.string(),
        ended: z.boolean(),
        variables: z.record(z.string(), z.unknown()),
        turn_count: z.number(),
      })
      .nullable()
      .describe('The CES session over the conversation, if it has one.'),
    responses: z.array(
      z.object({
        id: z.string(),
        turn_id: z.string(),
        previous_response_id: z.string().nullable(),
        stored: z.boolean().describe('False once deleted or for `store: false`: not readable on the Responses face.'),
        created_at: z.string(),
      }),
    ),
    turns: z.array(turnSchema),
    items: z.array(exportItemSchema).describe('The transcript, oldest first: every item Baton holds.'),
    tool_calls: z.array(toolCallSchema).describe('The ledger rows: calls, approvals and their decisions.'),
    queued_inputs: z.array(z.object({ id: z.string(), content: z.array(contentPartSchema), created_at: z.string() })),
  })
  .meta({ id: 'ConversationExport' });

export type ConversationExport = z.infer<typeof conversationExportSchema>;
type ExportItem = z.infer<typeof exportItemSchema>;
type ExportPart = z.infer<typeof contentPartSchema>;

function partView(part: ContentPart): ExportPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image', media_type: part.mediaType, data: part.data };
    case 'file':
      return { type: 'file', media_type: part.mediaType, data: part.data, url: part.url, filename: part.filename };
  }
}

/** One transcript item; what the model's provider attached (signatures, encrypted reasoning) stays in Baton. */
export function exportItemView(item: ItemRecord): ExportItem {
  const base = { id: item.id, seq: item.seq, turn_id: item.turnId, group_id: item.groupId, created_at: item.createdAt };
  const payload = item.payload;
  switch (payload.type) {
    case 'message':
      return {
        ...base,
        type: 'message',
        role: payload.role,
        content: payload.content.map(partView),
        ...(payload.phase ? { phase: payload.phase } : {}),
      };
    case 'reasoning':
      return { ...base, type: 'reasoning', text: payload.text };
    case 'function_call':
      return {
        ...base,
        type: 'function_call',
        call_id: payload.callId,
        name: payload.name,
        arguments: payload.arguments,
        executor: payload.executor,
      };
    case 'function_call_output':
      return {
        ...base,
        type: 'function_call_output',
        call_id: payload.callId,
        name: payload.name,
        output: payload.output.map(partView),
        is_error: payload.isError,
        synthetic: payload.synthetic,
      };
  }
}

function toolCallView(entry: LedgerEntryRecord): z.infer<typeof toolCallSchema> {
  return {
    id: entry.id,
    turn_id: entry.turnId,
    agent: entry.agentName,
    tool: entry.toolName,
    kind: entry.kind,
    executor: entry.worker ? 'worker' : 'client',
    arguments: entry.arguments,
    arguments_hash: entry.argumentsHash,
    state: entry.state,
    result: entry.result === null ? null : { content: entry.result.map(partView), is_error: entry.isError },
    deadline_at: entry.deadlineAt,
    timeout_policy: entry.timeoutPolicy,
    submitted_by: entry.submittedBy,
    submitted_at: entry.submittedAt,
    attempts: entry.worker ? entry.worker.attempts : null,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
  };
}

/** The export document of a conversation. */
export function conversationExportView(dump: ConversationDump): ConversationExport {
  const { conversation, session } = dump;
  return {
    schema: CONVERSATION_EXPORT_SCHEMA,
    conversation: {
      id: conversation.id,
      app_id: conversation.appId,
      agent: { id: conversation.agentId, name: conversation.agentName },
      metadata: conversation.metadata,
      created_at: conversation.createdAt,
      updated_at: conversation.updatedAt,
    },
    session: session
      ? { id: session.id, ended: session.ended, variables: session.variables, turn_count: session.turnCount }
      : null,
    responses: dump.responses.map((response) => ({
      id: response.id,
      turn_id: response.turnId,
      previous_response_id: response.previousResponseId,
      stored: response.stored,
      created_at: response.createdAt,
    })),
    turns: dump.turns.map((turn) => ({
      id: turn.id,
      status: turn.status,
      agent_id: turn.agentId,
      agent_version: turn.agentVersion,
      finish_reason: turn.finishReason,
      error: turn.error,
      step_count: turn.stepCount,
      usage: { input_tokens: turn.usage.inputTokens, output_tokens: turn.usage.outputTokens },
      created_at: turn.createdAt,
      updated_at: turn.updatedAt,
      completed_at: turn.completedAt,
    })),
    items: dump.items.map(exportItemView),
    tool_calls: dump.calls.map(toolCallView),
    queued_inputs: dump.queuedInputs.map((input) => ({
      id: input.id,
      content: input.content.map(partView),
      created_at: input.createdAt,
    })),
  };
}
