import { z } from 'zod';
import { DURATION_RANGES, durationNumber } from '../../domain/duration-ranges.ts';
import type { AgentInput } from './agent-definition.ts';
import type { AgentRecord, ClientToolDefinition, ProviderOptions } from '../../domain/records.ts';

/**
 * The snake_case form of tools and agents: how the config file (`baton.yaml`) and Baton's native
 * agents API write them, and per-request tool declarations. It lives with the agents, not in a
 * face, because the server reads the config file with it too. Deep rules (names, schemas,
 * limits) are the engine's; zod only checks shapes and types so the messages can name the field.
 */
export const toolWireSchema = z
  .object({
    type: z.enum(['function', 'client', 'manual']).optional(),
    name: z.string(),
    description: z.string().max(10_000).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    response_schema: z.record(z.string(), z.unknown()).optional(),
    enforce_response_schema: z.boolean().optional(),
    timeout_seconds: durationNumber(DURATION_RANGES.pendingCall).optional(),
    timeout_policy: z.enum(['error_result', 'fail', 'cancel']).optional(),
  })
  .strict();

export type ToolWire = z.infer<typeof toolWireSchema>;

export const agentWireSchema = z
  .object({
    name: z.string(),
    model: z.string(),
    instructions: z.string().max(100_000).optional(),
    description: z.string().max(10_000).optional(),
    tools: z.array(toolWireSchema).max(1_000).optional(),
    max_steps: z.number().int().optional(),
    parallel_tool_calls: z.boolean().optional(),
    tool_timeout_seconds: durationNumber(DURATION_RANGES.pendingCall, { nullMeans: 'for no deadline' })
      .nullable()
      .optional(),
    timeout_policy: z.enum(['error_result', 'fail', 'cancel']).optional(),
    input_policy: z.enum(['reject', 'queue']).optional(),
    partial_results: z.enum(['hold', 'reject']).optional(),
    /** `requires_action`: `/v1/responses` says so while a response waits for outputs (the Nodexa dialect). */
    paused_response_status: z.enum(['completed', 'requires_action']).optional(),
    history_limit: z.number().int().optional(),
    temperature: z.number().min(0).max(2).optional(),
    max_output_tokens: z.number().int().positive().optional(),
    /** Checked per provider by `checkProviderOptions` when the definition is built. */
    provider_options: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  })
  .strict();

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
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}
