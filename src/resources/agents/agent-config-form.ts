import { z } from 'zod';
import { DURATION_RANGES, durationNumber } from '../../domain/duration-ranges.ts';
import { retentionFromWire, retentionToWire, retentionWireSchema } from '../../domain/retention.ts';
import { AGENT_DEFAULTS, type AgentInput } from './agent-definition.ts';
import { TOOL_NAME_PATTERN } from '../../engine/index.ts';
import type { AgentRecord, ClientToolDefinition, ProviderOptions } from '../../domain/records.ts';

/**
 * Names are checked by the engine's rules (with their own error codes), not by these shapes; the
 * pattern is documentation for JSON Schema readers (baton.schema.json, the API description).
 */
const NAME_PATTERN = TOOL_NAME_PATTERN.source;

/**
 * The snake_case form of tools and agents: how the config file (`baton.yaml`) and Baton's native
 * agents API write them, and per-request tool declarations. It lives with the agents, not in a
 * face, because the server reads the config file with it too. Deep rules (names, schemas,
 * limits) are the engine's; zod only checks shapes and types so the messages can name the field.
 */
export const toolWireSchema = z
  .object({
    type: z
      .enum(['function', 'client', 'manual'])
      .optional()
      .describe('Every tool declared here is executed by the client; the three names are synonyms.'),
    name: z.string().meta({
      description: 'The tool name the model calls: letters, digits, _ and -, at most 64.',
      pattern: NAME_PATTERN,
    }),
    description: z.string().max(10_000).optional().describe('What the tool does and when to use it, for the model.'),
    parameters: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('A JSON Schema of the arguments, "type": "object" (default: an object with no properties).'),
    response_schema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('A JSON Schema of the result the client sends back (the console builds its answer form from it).'),
    enforce_response_schema: z
      .boolean()
      .optional()
      .meta({ description: 'Refuse results that do not match response_schema.', default: false }),
    timeout_seconds: durationNumber(DURATION_RANGES.pendingCall)
      .optional()
      .describe("How long a call of this tool may stay pending; overrides the agent's tool_timeout_seconds."),
    timeout_policy: z
      .enum(['error_result', 'fail', 'cancel'])
      .optional()
      .describe("What an expired call of this tool does; overrides the agent's timeout_policy."),
    executor: z.enum(['client', 'worker']).optional().meta({
      description:
        "Who answers its calls: the conversation's caller (client), or tool workers that claim them (worker; docs/tool-workers.md).",
      default: 'client',
    }),
    max_attempts: z
      .number()
      .int('max_attempts must be a whole number')
      .min(1, 'max_attempts must be at least 1')
      .max(100, 'max_attempts must be at most 100')
      .optional()
      .meta({
        description: 'A worker tool: how many worker leases may lapse on one call before its timeout_policy applies.',
        default: 3,
      }),
  })
  .strict()
  .describe('A client-executed tool: the run pauses until the client sends its result.');

export type ToolWire = z.infer<typeof toolWireSchema>;

export const agentWireSchema = z
  .object({
    name: z.string().meta({
      description: 'The agent name clients address it by: letters, digits, _ and -, at most 64.',
      pattern: NAME_PATTERN,
    }),
    model: z
      .string()
      .describe('provider:model-id, such as scripted:auto, openai:gpt-4o-mini or a providers.custom name.'),
    instructions: z.string().max(100_000).optional().describe('The system prompt.'),
    description: z.string().max(10_000).optional().describe('What the agent is for, for people.'),
    tools: z.array(toolWireSchema).max(1_000).optional().describe('Client-executed tools of the agent.'),
    max_steps: z.number().int().optional().meta({
      description: 'Model steps per turn before the turn ends.',
      minimum: 1,
      maximum: 100,
      default: AGENT_DEFAULTS.maxSteps,
    }),
    parallel_tool_calls: z.boolean().optional().meta({
      description: 'Whether the model may call several tools at once.',
      default: AGENT_DEFAULTS.parallelToolCalls,
    }),
    tool_timeout_seconds: durationNumber(DURATION_RANGES.pendingCall, { nullMeans: 'for no deadline' })
      .nullable()
      .optional()
      .meta({
        description: 'How long a client call may stay pending before timeout_policy applies (null: no deadline).',
        default: AGENT_DEFAULTS.toolTimeoutSeconds,
      }),
    timeout_policy: z.enum(['error_result', 'fail', 'cancel']).optional().meta({
      description:
        'What an expired call does: error_result writes an error result and the agent goes on; fail fails the turn; cancel cancels it.',
      default: AGENT_DEFAULTS.timeoutPolicy,
    }),
    input_policy: z.enum(['reject', 'queue']).optional().meta({
      description: 'New user input while calls are pending: reject (409) or queue it until they resolve.',
      default: AGENT_DEFAULTS.inputPolicy,
    }),
    partial_results: z.enum(['hold', 'reject']).optional().meta({
      description: 'Results for only some pending calls: hold them until the rest arrive, or reject them.',
      default: 'hold',
    }),
    /** `requires_action`: `/v1/responses` says so while a response waits for outputs (the Nodexa dialect). */
    paused_response_status: z.enum(['completed', 'requires_action']).optional().meta({
      description: "The status of a paused response on /v1/responses: OpenAI's completed, or requires_action (Nodexa).",
      default: 'completed',
    }),
    history_limit: z.number().int().optional().meta({
      description: 'Items of history the model sees per step.',
      minimum: 2,
      default: AGENT_DEFAULTS.historyLimit,
    }),
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .describe('Sampling temperature (the provider default when absent).'),
    max_output_tokens: z.number().int().positive().optional().describe('The most tokens the model writes per step.'),
    /** Checked per provider by `checkProviderOptions` when the definition is built. */
    provider_options: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe('Options passed to the provider, by provider name (such as openai: { reasoningEffort: low }).'),
    retention: retentionWireSchema.optional(),
  })
  .strict()
  .describe('An agent: its model, instructions and client-executed tools.');

export type AgentWire = z.infer<typeof agentWireSchema>;

export function toolFromWire(tool: ToolWire): ClientToolDefinition {
  const definition: ClientToolDefinition = {
    name: tool.name,
    description: tool.description ?? '',
    parameters: (tool.parameters ?? { type: 'object', properties: {} }) as ClientToolDefinition['parameters'],
  };
  if (tool.response_schema !== undefined)
    definition.responseSchema = tool.response_schema as ClientToolDefinition['parameters'];
  if (tool.enforce_response_schema !== undefined) definition.enforceResponseSchema = tool.enforce_response_schema;
  if (tool.timeout_seconds !== undefined) definition.timeoutSeconds = tool.timeout_seconds;
  if (tool.timeout_policy !== undefined) definition.timeoutPolicy = tool.timeout_policy;
  if (tool.executor !== undefined) definition.executor = tool.executor;
  if (tool.max_attempts !== undefined) definition.maxAttempts = tool.max_attempts;
  return definition;
}

export function toolToWire(tool: ClientToolDefinition): ToolWire {
  return {
    type: 'client',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(tool.responseSchema !== undefined ? { response_schema: tool.responseSchema } : {}),
    ...(tool.enforceResponseSchema !== undefined ? { enforce_response_schema: tool.enforceResponseSchema } : {}),
    ...(tool.timeoutSeconds !== undefined ? { timeout_seconds: tool.timeoutSeconds } : {}),
    ...(tool.timeoutPolicy !== undefined ? { timeout_policy: tool.timeoutPolicy } : {}),
    ...(tool.executor !== undefined ? { executor: tool.executor } : {}),
    ...(tool.maxAttempts !== undefined ? { max_attempts: tool.maxAttempts } : {}),
  };
}

export function agentFromWire(agent: AgentWire): AgentInput {
  const input: AgentInput = { name: agent.name, model: agent.model, tools: (agent.tools ?? []).map(toolFromWire) };
  if (agent.instructions !== undefined) input.instructions = agent.instructions;
  if (agent.description !== undefined) input.description = agent.description;
  if (agent.max_steps !== undefined) input.maxSteps = agent.max_steps;
  if (agent.parallel_tool_calls !== undefined) input.parallelToolCalls = agent.parallel_tool_calls;
  if (agent.tool_timeout_seconds !== undefined) input.toolTimeoutSeconds = agent.tool_timeout_seconds;
  if (agent.timeout_policy !== undefined) input.timeoutPolicy = agent.timeout_policy;
  if (agent.input_policy !== undefined) input.inputPolicy = agent.input_policy;
  if (agent.partial_results !== undefined) input.partialResults = agent.partial_results;
  if (agent.paused_response_status !== undefined) input.pausedResponseStatus = agent.paused_response_status;
  if (agent.history_limit !== undefined) input.historyLimit = agent.history_limit;
  if (agent.temperature !== undefined) input.temperature = agent.temperature;
  if (agent.max_output_tokens !== undefined) input.maxOutputTokens = agent.max_output_tokens;
  if (agent.provider_options !== undefined) input.providerOptions = agent.provider_options as ProviderOptions;
  if (agent.retention !== undefined) input.retention = retentionFromWire(agent.retention);
  return input;
}

export function agentToWire(agent: AgentRecord) {
  const definition = agent.definition;
  return {
    object: 'agent',
    id: agent.id,
    name: agent.name,
    version: agent.version,
    model: definition.model,
    instructions: definition.instructions,
    description: definition.description ?? null,
    tools: definition.tools.map(toolToWire),
    max_steps: definition.maxSteps,
    parallel_tool_calls: definition.parallelToolCalls,
    tool_timeout_seconds: definition.toolTimeoutSeconds,
    timeout_policy: definition.timeoutPolicy,
    input_policy: definition.inputPolicy,
    partial_results: definition.partialResults ?? 'hold',
    paused_response_status: definition.pausedResponseStatus ?? 'completed',
    history_limit: definition.historyLimit,
    temperature: definition.temperature ?? null,
    max_output_tokens: definition.maxOutputTokens ?? null,
    provider_options: definition.providerOptions ?? {},
    ...(definition.retention ? { retention: retentionToWire(definition.retention) } : {}),
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}
