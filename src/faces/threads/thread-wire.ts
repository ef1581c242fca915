import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { DURATION_RANGES, durationNumber } from '../../domain/duration-ranges.ts';
import type { ToolResultInput } from '../../engine/index.ts';
import type { ContentPart, TurnOptions } from '../../domain/records.ts';
import { toolFromWire, toolWireSchema } from '../../resources/agents/agent-config-form.ts';

const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const textBlock = z.object({ type: z.literal('text'), text: z.string() }).strict();
const imageBlock = z
  .object({
    type: z.literal('image'),
    source: z
      .object({
        type: z.literal('base64'),
        media_type: z.enum(IMAGE_MEDIA_TYPES),
        data: z.string().min(1).regex(BASE64, 'data must be base64'),
      })
      .strict(),
  })
  .strict();
/** The seeds' most common mistake: a tool result sent as an object instead of a string. */
export const RESULT_NOT_A_STRING =
  'a tool result must be a string (or an array of text and image blocks), not an object or a number: ' +
  'JSON.stringify the result, as in "content": JSON.stringify({"approved": true})';

const toolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_call_id: z.string().min(1).max(200),
    content: z
      .union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock]))], {
        error: RESULT_NOT_A_STRING,
      })
      .optional(),
    is_error: z.boolean().optional(),
  })
  .strict();
const block = z.discriminatedUnion('type', [textBlock, imageBlock, toolResultBlock]);

export const createThreadBody = z
  .object({
    agent: z.string().min(1).max(64),
    metadata: z
      .record(z.string().max(64), z.string().max(512))
      .refine((value) => Object.keys(value).length <= 16, 'metadata holds at most 16 keys')
      .optional(),
  })
  .strict();

export const postMessageBody = z
  .object({
    role: z.enum(['user', 'tool']).optional(),
    content: z.union([z.string(), z.array(block).min(1, 'content must hold at least one block')], {
      error:
        'content must be a string or an array of content blocks (text, image, tool_result), not an object or a ' +
        'number: send the text, or wrap tool results in [{"type": "tool_result", …}]',
    }),
    tools: z.array(toolWireSchema).optional(),
    tool_choice: z
      .union([
        z.enum(['auto', 'none', 'required']),
        z.object({ type: z.enum(['tool', 'function']), name: z.string() }).strict(),
      ])
      .optional(),
    parallel_tool_calls: z.boolean().optional(),
    tool_timeout_seconds: durationNumber(DURATION_RANGES.pendingCall).optional(),
    max_steps: z.number().int().min(1).max(100).optional(),
    stream: z.boolean().optional(),
  })
  .strict();

export type PostMessageBody = z.infer<typeof postMessageBody>;

type Block = z.infer<typeof block>;

function toContentPart(part: Exclude<Block, { type: 'tool_result' }>): ContentPart {
  return part.type === 'text'
    ? { type: 'text', text: part.text }
    : { type: 'image', mediaType: part.source.media_type, data: part.source.data };
}

export type ParsedMessage =
  { kind: 'input'; content: ContentPart[]; options: TurnOptions } | { kind: 'results'; results: ToolResultInput[] };

/**
 * Splits a posted message into new user input or tool results. A message carries one or the
 * other: mixing them would leave it unclear whether the text answers the calls or starts a turn.
 */
export function parsePostedMessage(body: PostMessageBody): ParsedMessage {
  const blocks: Block[] = typeof body.content === 'string' ? [{ type: 'text', text: body.content }] : body.content;
  const results = blocks.filter((entry) => entry.type === 'tool_result');
  if (results.length > 0) {
    if (results.length !== blocks.length) {
      throw new BatonError(
        'mixed_content',
        'A message carries either tool_result blocks or user content (text, images), not both: send the results first, then the new input.',
        {
          param: 'content',
        },
      );
    }
    return {
      kind: 'results',
      results: blocks.map((entry, index) => {
        const result = entry as z.infer<typeof toolResultBlock>;
        const output: ContentPart[] =
          result.content === undefined
            ? []
            : typeof result.content === 'string'
              ? [{ type: 'text', text: result.content }]
              : result.content.map(toContentPart);
        return { callId: result.tool_call_id, output, isError: result.is_error ?? false, param: `content[${index}]` };
      }),
    };
  }
  if (body.role === 'tool') {
    throw new BatonError(
      'invalid_role',
      "role 'tool' is only for messages of tool_result blocks; send new input with role 'user'.",
      { param: 'role' },
    );
  }
  const content = blocks.map((entry) => toContentPart(entry as Exclude<Block, { type: 'tool_result' }>));
  if (content.every((part) => part.type === 'text' && part.text.trim() === '')) {
    throw new BatonError('empty_content', 'content must not be empty: send the user message text.', {
      param: 'content',
    });
  }
  const options: TurnOptions = { tools: (body.tools ?? []).map(toolFromWire) };
  if (body.tool_choice !== undefined) {
    options.toolChoice =
      typeof body.tool_choice === 'string' ? body.tool_choice : { type: 'tool', name: body.tool_choice.name };
  }
  if (body.parallel_tool_calls !== undefined) options.parallelToolCalls = body.parallel_tool_calls;
  if (body.tool_timeout_seconds !== undefined) options.toolTimeoutSeconds = body.tool_timeout_seconds;
  if (body.max_steps !== undefined) options.maxSteps = body.max_steps;
  return { kind: 'input', content, options };
}
