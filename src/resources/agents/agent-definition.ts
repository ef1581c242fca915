import type {
  AgentDefinition,
  ClientToolDefinition,
  InputPolicy,
  PartialResultsPolicy,
  PausedResponseStatus,
  TimeoutPolicy,
} from '../../domain/records.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { DURATION_RANGES, describeDurationRange, inDurationRange } from '../../domain/duration-ranges.ts';
import { assertValidToolSet, TOOL_NAME_PATTERN } from '../../engine/index.ts';
import { checkProviderOptions } from './provider-options.ts';
import { checkRetention } from '../../domain/retention.ts';

export const AGENT_DEFAULTS = {
  maxSteps: 10,
  parallelToolCalls: true,
  toolTimeoutSeconds: null,
  timeoutPolicy: 'error_result',
  inputPolicy: 'reject',
  historyLimit: 200,
} as const satisfies Partial<AgentDefinition>;

const TIMEOUT_POLICIES: readonly TimeoutPolicy[] = ['error_result', 'fail', 'cancel'];
const INPUT_POLICIES: readonly InputPolicy[] = ['reject', 'queue'];
const PARTIAL_RESULTS: readonly PartialResultsPolicy[] = ['hold', 'reject'];
const PAUSED_RESPONSE_STATUSES: readonly PausedResponseStatus[] = ['completed', 'requires_action'];

/** Everything an agent may be created with; omitted settings take `AGENT_DEFAULTS`. */
export type AgentInput = Pick<AgentDefinition, 'name' | 'model'> & Partial<Omit<AgentDefinition, 'name' | 'model'>>;

/**
 * Fills defaults and checks every rule of an agent definition, so a bad agent is refused when it
 * is created rather than when a user first talks to it. `validateModel` checks the model id.
 */
export function buildAgentDefinition(input: AgentInput, validateModel: (modelId: string) => void): AgentDefinition {
  if (typeof input.name !== 'string' || !TOOL_NAME_PATTERN.test(input.name)) {
    throw new BatonError(
      'invalid_agent_name',
      `Invalid agent name '${String(input.name)}': names must match ^[a-zA-Z0-9_-]{1,64}$.`,
      {
        param: 'name',
      },
    );
  }
  if (typeof input.model !== 'string' || input.model.trim() === '') {
    throw new BatonError(
      'invalid_model',
      `Agent '${input.name}' needs a model such as "scripted:auto" or "openai:gpt-4o-mini".`,
      {
        param: 'model',
      },
    );
  }
  try {
    validateModel(input.model);
  } catch (error) {
    throw new BatonError('invalid_model', (error as Error).message, { param: 'model' });
  }
  const tools: ClientToolDefinition[] = (input.tools ?? []).map((tool) => ({
    ...tool,
    description: tool.description ?? '',
  }));
  assertValidToolSet(tools, 'tools');
  const definition: AgentDefinition = {
    name: input.name,
    model: input.model,
    instructions: input.instructions ?? '',
    tools,
    maxSteps: input.maxSteps ?? AGENT_DEFAULTS.maxSteps,
    parallelToolCalls: input.parallelToolCalls ?? AGENT_DEFAULTS.parallelToolCalls,
    toolTimeoutSeconds: input.toolTimeoutSeconds ?? AGENT_DEFAULTS.toolTimeoutSeconds,
    timeoutPolicy: input.timeoutPolicy ?? AGENT_DEFAULTS.timeoutPolicy,
    inputPolicy: input.inputPolicy ?? AGENT_DEFAULTS.inputPolicy,
    historyLimit: input.historyLimit ?? AGENT_DEFAULTS.historyLimit,
  };
  if (input.description !== undefined) definition.description = input.description;
  if (input.temperature !== undefined) definition.temperature = input.temperature;
  if (input.maxOutputTokens !== undefined) definition.maxOutputTokens = input.maxOutputTokens;
  if (input.providerOptions !== undefined && Object.keys(input.providerOptions).length > 0)
    definition.providerOptions = checkProviderOptions(input.providerOptions);
  if (input.toolIds !== undefined) definition.toolIds = [...input.toolIds];
  if (input.toolsets !== undefined)
    definition.toolsets = input.toolsets.map((reference) => ({
      toolsetId: reference.toolsetId,
      toolIds: [...reference.toolIds],
    }));
  if (input.displayName !== undefined) definition.displayName = input.displayName;
  if (input.partialResults !== undefined) {
    if (!PARTIAL_RESULTS.includes(input.partialResults))
      throw new BatonError('invalid_partial_results', `partial_results must be one of ${PARTIAL_RESULTS.join(', ')}.`, {
        param: 'partial_results',
      });
    definition.partialResults = input.partialResults;
  }
  if (input.pausedResponseStatus !== undefined) {
    if (!PAUSED_RESPONSE_STATUSES.includes(input.pausedResponseStatus))
      throw new BatonError(
        'invalid_paused_response_status',
        `paused_response_status must be one of ${PAUSED_RESPONSE_STATUSES.join(', ')}.`,
        { param: 'paused_response_status' },
      );
    definition.pausedResponseStatus = input.pausedResponseStatus;
  }
  if (input.extras !== undefined) definition.extras = input.extras;
  if (input.retention !== undefined) {
    const retention = checkRetention(input.retention, 'retention', 'camel');
    if (Object.keys(retention).length > 0) definition.retention = retention;
  }
  if (!Number.isInteger(definition.maxSteps) || definition.maxSteps < 1 || definition.maxSteps > 100) {
    throw new BatonError(
      'invalid_max_steps',
      `max_steps must be an integer from 1 to 100 (got ${definition.maxSteps}).`,
      { param: 'max_steps' },
    );
  }
  if (!Number.isInteger(definition.historyLimit) || definition.historyLimit < 2) {
    throw new BatonError(
      'invalid_history_limit',
      `history_limit must be an integer of at least 2 (got ${definition.historyLimit}).`,
      {
        param: 'history_limit',
      },
    );
  }
  const deadlines = DURATION_RANGES.pendingCall;
  if (definition.toolTimeoutSeconds !== null && !inDurationRange(definition.toolTimeoutSeconds, deadlines)) {
    throw new BatonError(
      'invalid_timeout',
      `tool_timeout_seconds must be ${describeDurationRange(deadlines)}, or null for no deadline ` +
        `(got ${definition.toolTimeoutSeconds}).`,
      { param: 'tool_timeout_seconds' },
    );
  }
  if (!TIMEOUT_POLICIES.includes(definition.timeoutPolicy)) {
    throw new BatonError('invalid_timeout_policy', `timeout_policy must be one of ${TIMEOUT_POLICIES.join(', ')}.`, {
      param: 'timeout_policy',
    });
  }
  if (!INPUT_POLICIES.includes(definition.inputPolicy)) {
    throw new BatonError('invalid_input_policy', `input_policy must be one of ${INPUT_POLICIES.join(', ')}.`, {
      param: 'input_policy',
    });
  }
  tools.forEach((tool, index) => {
    if (tool.timeoutSeconds !== undefined && !inDurationRange(tool.timeoutSeconds, deadlines)) {
      throw new BatonError(
        'invalid_timeout',
        `tools[${index}].timeout_seconds must be ${describeDurationRange(deadlines)} (got ${tool.timeoutSeconds}).`,
        { param: `tools[${index}].timeout_seconds` },
      );
    }
    if (tool.timeoutPolicy !== undefined && !TIMEOUT_POLICIES.includes(tool.timeoutPolicy)) {
      throw new BatonError(
        'invalid_timeout_policy',
        `tools[${index}].timeout_policy must be one of ${TIMEOUT_POLICIES.join(', ')}.`,
        {
          param: `tools[${index}].timeout_policy`,
        },
      );
    }
  });
  return definition;
}
