import { z } from 'zod';
import { viewFits } from '../kit/view-fits.ts';
import { heldResultsView, queuedView } from './thread-routes.ts';
import { ledgerEntryView, messageResponseView, threadView, toolCallView } from './thread-views.ts';

/** What the Threads and ledger views (thread-views.ts) return, as the API document shows it. */

const time = z.string().describe('RFC 3339 time (UTC).');

/** A string, or content blocks (text, image, document, tool_result), as the message was sent. */
const content = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]);

export const toolCallSchema = z
  .object({
    id: z.string(),
    type: z.literal('function'),
    name: z.string(),
    input: z.unknown().describe('The arguments, as JSON.'),
    kind: z
      .literal('approval')
      .optional()
      .describe('Present for an approval: decide it with POST /v1/tool-calls/{id}/decision instead of answering it.'),
  })
  .meta({ id: 'ToolCall' });

export const threadSchema = z
  .object({
    id: z.string(),
    object: z.literal('thread'),
    agent: z.string(),
    status: z
      .enum(['idle', 'running', 'pending'])
      .describe('`pending` while tool calls wait for their results (derived from the ledger).'),
    pending_tool_calls: z.array(toolCallSchema.extend({ deadline_at: time.nullable() })),
    metadata: z.record(z.string(), z.string()),
    created_at: time,
    updated_at: time,
  })
  .meta({ id: 'Thread' });

export const usageSchema = z
  .object({
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cached_input_tokens: z.number().int().optional(),
    reasoning_tokens: z.number().int().optional(),
  })
  .meta({ id: 'Usage' });

export const messageResponseSchema = z
  .object({
    id: z.string(),
    object: z.literal('thread.message'),
    thread_id: z.string(),
    turn_id: z.string(),
    created_at: time,
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable(),
          tool_calls: z.array(toolCallSchema).optional(),
        }),
        finish_reason: z
          .enum(['stop', 'tool_use', 'max_steps', 'length', 'error', 'cancelled'])
          .describe('`tool_use`: the run paused for the tool_calls; answer them with tool_result blocks.'),
      }),
    ),
    usage: usageSchema,
  })
  .meta({ id: 'MessageResponse' });

export const messageSchema = z
  .object({
    id: z.string(),
    object: z.literal('thread.message'),
    role: z.enum(['user', 'assistant', 'system']),
    content: content.nullable(),
    tool_calls: z
      .array(
        z.object({
          id: z.string(),
          type: z.literal('function'),
          name: z.string(),
          input: z.unknown(),
          executor: z.string().optional().describe('Present for calls Baton ran itself (`server`, `fake`).'),
        }),
      )
      .optional(),
    reasoning: z.string().optional(),
    turn_id: z.string(),
    created_at: time,
  })
  .meta({ id: 'Message' });

export const ledgerEntrySchema = z
  .object({
    object: z.literal('tool_call'),
    id: z.string(),
    type: z.literal('function'),
    name: z.string(),
    input: z.unknown(),
    arguments_hash: z.string(),
    kind: z.enum(['client', 'approval', 'client_async', 'server']),
    state: z.enum(['pending', 'completed', 'failed', 'denied', 'expired', 'cancelled']),
    thread_id: z.string(),
    turn_id: z.string(),
    agent: z.string(),
    deadline_at: time.nullable(),
    timeout_policy: z.enum(['error_result', 'fail', 'cancel']),
    result: z.object({ content, is_error: z.boolean() }).nullable(),
    submitted_by: z.string().nullable().describe('The id of the API key that answered or decided it.'),
    submitted_at: time.nullable(),
    created_at: time,
    updated_at: time,
    executor: z
      .enum(['client', 'worker'])
      .describe('`worker`: the call is offered to tool workers, which claim it under a lease (docs/tool-workers.md).'),
    attempts: z.number().int().optional().describe('A worker call: claims so far (a released claim does not count).'),
    max_attempts: z
      .number()
      .int()
      .optional()
      .describe('A worker call: lapsed leases it survives before its deadline policy applies.'),
    lease: z
      .object({
        token: z.string().optional().describe('Only in the answers to the claiming worker (claim, renewal).'),
        holder: z.string().describe("The worker's label, or its key id."),
        key_id: z.string(),
        claimed_at: time,
        expires_at: time,
      })
      .nullable()
      .optional()
      .describe('A worker call: the worker holding it, or null when none does.'),
  })
  .meta({ id: 'LedgerEntry' });

export const queuedMessageSchema = z
  .object({
    id: z.string(),
    object: z.literal('thread.message.queued'),
    thread_id: z.string(),
    status: z.literal('queued'),
    pending_tool_call_ids: z.array(z.string()),
    created_at: time,
  })
  .meta({ id: 'QueuedMessage' });

export const heldResultsSchema = z
  .object({
    object: z.literal('thread.tool_results.held'),
    thread_id: z.string(),
    turn_id: z.string(),
    status: z.literal('pending'),
    held_tool_call_ids: z.array(z.string()),
    pending_tool_call_ids: z.array(z.string()),
  })
  .meta({ id: 'HeldToolResults' });

viewFits(toolCallSchema, toolCallView);
viewFits(threadSchema, threadView);
viewFits(messageResponseSchema, messageResponseView);
viewFits(ledgerEntrySchema, ledgerEntryView);
viewFits(queuedMessageSchema, queuedView);
viewFits(heldResultsSchema, heldResultsView);
