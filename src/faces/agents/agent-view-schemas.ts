import { z } from 'zod';
import { agentToWire, toolWireSchema } from '../../resources/agents/agent-config-form.ts';
import { viewFits } from '../kit/view-fits.ts';
import { retentionWireSchema } from '../../domain/retention.ts';

/** An agent as `/v1/agents` shows it (`agentToWire`): its current version's definition, every default filled in. */
export const agentSchema = z
  .object({
    object: z.literal('agent'),
    id: z.string(),
    name: z.string(),
    version: z.number().int().describe('Grows on every update; a paused turn keeps the version it started with.'),
    model: z.string().describe('`provider:model-id`, e.g. `openai:gpt-4o-mini` or `scripted:demo`.'),
    instructions: z.string(),
    description: z.string().nullable(),
    tools: z.array(toolWireSchema),
    max_steps: z.number().int(),
    parallel_tool_calls: z.boolean(),
    tool_timeout_seconds: z.number().nullable(),
    timeout_policy: z.enum(['error_result', 'fail', 'cancel']),
    input_policy: z.enum(['reject', 'queue']),
    partial_results: z.enum(['hold', 'reject']),
    paused_response_status: z.enum(['completed', 'requires_action']),
    history_limit: z.number().int(),
    temperature: z.number().nullable(),
    max_output_tokens: z.number().int().nullable(),
    provider_options: z.record(z.string(), z.record(z.string(), z.unknown())),
    retention: retentionWireSchema
      .optional()
      .describe("The agent's own retention policy, when it has one; absent fields (or none) follow the app's."),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Agent' });

viewFits(agentSchema, agentToWire);
