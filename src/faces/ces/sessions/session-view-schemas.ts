import { z } from 'zod';
import { viewFits } from '../../kit/view-fits.ts';
import { conversationView } from './conversation-views.ts';
import type { SessionOutput } from './session-wire.ts';

/** What `:runSession` and the conversations routes answer, as the API document shows it. */

const struct = z.record(z.string(), z.unknown());
const toolRef = {
  tool: z.string().optional().describe('The Tool resource name, for a Tool.'),
  toolsetTool: z.object({ toolset: z.string(), toolId: z.string() }).optional().describe('For a tool of a toolset.'),
};

const messageSchema = z.object({
  role: z.string().describe('"user", an agent\'s name, or "system" for Baton\'s notes.'),
  chunks: z.array(struct).describe('text, toolCall, toolResponse, image, … chunks.'),
  eventTime: z.string(),
});

export const sessionOutputSchema = z
  .object({
    text: z.string().optional(),
    toolCalls: z
      .object({
        toolCalls: z.array(z.object({ id: z.string(), displayName: z.string(), args: struct, ...toolRef })),
      })
      .optional()
      .describe('Client functions for the client to run; answer them with `toolResponses` in the next request.'),
    endSession: z.object({ metadata: struct.optional() }).optional(),
    turnIndex: z.number().int(),
    turnCompleted: z.boolean().optional(),
    diagnosticInfo: z
      .object({ messages: z.array(messageSchema) })
      .optional()
      .describe("On the turnCompleted output: what happened out of the client's sight (server tools)."),
  })
  .meta({ id: 'SessionOutput' });

export const runSessionResponseSchema = z
  .object({ outputs: z.array(sessionOutputSchema) })
  .meta({ id: 'RunSessionResponse' });

export const conversationSchema = z
  .object({
    name: z.string().describe('projects/{p}/locations/{l}/apps/{app}/conversations/{conversation}.'),
    startTime: z.string(),
    endTime: z.string().optional(),
    turnCount: z.number().int(),
    entryAgent: z.string(),
    source: z.literal('LIVE'),
    inputTypes: z.array(z.string()),
    turns: z
      .array(z.object({ messages: z.array(messageSchema) }))
      .optional()
      .describe('On get, not in lists.'),
  })
  .meta({ id: 'Conversation' });

viewFits(sessionOutputSchema, (output: SessionOutput) => output);
viewFits(conversationSchema, conversationView);
