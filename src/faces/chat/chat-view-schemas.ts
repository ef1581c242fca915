import { z } from 'zod';
import { viewFits } from '../kit/view-fits.ts';
import { toolCallView } from './chat-views.ts';

/** What the Chat Completions face answers (chat-views.ts, model-list.ts), as the API document shows it. */

const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string().describe('The arguments as JSON text.') }),
});

export const chatCompletionSchema = z
  .looseObject({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.looseObject({
        index: z.number().int(),
        message: z.looseObject({
          role: z.literal('assistant'),
          content: z.string().nullable(),
          tool_calls: z
            .array(toolCallSchema)
            .optional()
            .describe('Client tools for the caller to run; send their results as `tool` messages to resume.'),
        }),
        finish_reason: z.enum(['stop', 'length', 'tool_calls']),
      }),
    ),
    usage: z.looseObject({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
    }),
    baton: z
      .looseObject({
        conversation_id: z.string(),
        turn_id: z.string(),
        pending_tool_call_ids: z.array(z.string()),
        pending_approval_ids: z.array(z.string()),
      })
      .describe(
        "Baton's own, beside OpenAI's fields: the conversation and turn that answered, and what they wait for.",
      ),
  })
  .meta({ id: 'ChatCompletion' });

export const modelSchema = z
  .object({
    id: z.string().describe('An agent of the app, or a `provider:model` id its agents run on.'),
    object: z.literal('model'),
    created: z.number().int(),
    owned_by: z.string(),
    baton: z.looseObject({ kind: z.enum(['agent', 'provider_model']) }),
  })
  .meta({ id: 'Model' });

viewFits(toolCallSchema, toolCallView);
