import { BatonError } from '../../domain/errors/baton-error.ts';
import type {
  ClientToolDefinition,
  JsonSchema,
  ResponseFormat,
  ToolChoice,
  TurnOptions,
} from '../../domain/records.ts';
import { assertValidToolDefinition } from '../../engine/index.ts';
import { parseField } from './chat-fields.ts';
import { functionToolWire, type ChatCompletionBody } from './chat-wire.ts';

/** Fields of OpenAI's request Baton cannot honour, with what to do instead. */
const UNSUPPORTED: Partial<Record<keyof ChatCompletionBody, string>> = {
  stop: 'stop sequences are not supported by Baton agents: leave stop out.',
  functions: 'functions is the deprecated form of tools: send tools [{"type": "function", "function": {…}}].',
  function_call: 'function_call is the deprecated form of tool_choice: send tool_choice.',
  audio: 'audio output is not supported: Baton answers in text.',
  prediction: 'predicted outputs are not supported: leave prediction out.',
  web_search_options: 'web search is not a request option here: give the agent a search tool instead.',
};

/** Refuses the fields Baton cannot honour (a `null` counts as left out, as OpenAI's clients send it). */
export function refuseUnsupported(body: ChatCompletionBody): void {
  for (const [field, advice] of Object.entries(UNSUPPORTED)) {
    const value = body[field as keyof ChatCompletionBody];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    throw new BatonError('unsupported_field', `${field} is not supported: ${advice}`, { param: field });
  }
}

/**
 * Parses `tools`: function tools only, each checked here with its place in the request, so the
 * error names `tools[2].function.parameters` (the engine checks them again, in its own terms).
 */
export function toToolDefinitions(tools: ChatCompletionBody['tools']): ClientToolDefinition[] {
  return (tools ?? []).map((tool, index) => {
    const type = typeof tool === 'object' && tool !== null ? (tool as { type?: unknown }).type : undefined;
    if (type !== 'function') {
      throw new BatonError(
        'unsupported_tool_type',
        `Tool type ${JSON.stringify(type ?? null)} at tools[${index}] is not supported: send function tools ` +
          `({"type": "function", "function": {"name", "parameters"}}); tools Baton runs itself are configured on the agent.`,
        { param: `tools[${index}].type` },
      );
    }
    const { function: declared } = parseField(functionToolWire, tool, `tools[${index}]`);
    const definition: ClientToolDefinition = {
      name: declared.name,
      description: declared.description ?? '',
      parameters: withoutDialect(declared.parameters ?? { type: 'object', properties: {} }),
    };
    assertValidToolDefinition(definition, `tools[${index}].function`);
    return definition;
  });
}

/**
 * Parameters without their `$schema`: clients that build them with zod 4 (LangChain, the AI SDK)
 * name the 2020-12 dialect, which Baton's validator would go looking for as a schema it does not
 * have. Tool parameters are plain object schemas that read the same either way, and the MCP face
 * and OpenAPI tools drop the keyword the same way.
 */
function withoutDialect(parameters: Record<string, unknown>): JsonSchema {
  const { $schema: _dialect, ...schema } = parameters;
  return schema as JsonSchema;
}

function toToolChoice(choice: ChatCompletionBody['tool_choice']): { toolChoice?: ToolChoice; allowedTools?: string[] } {
  if (!choice) return {};
  if (typeof choice === 'string') return { toolChoice: choice };
  if (choice.type === 'function') return { toolChoice: { type: 'tool', name: choice.function.name } };
  return {
    toolChoice: choice.allowed_tools.mode,
    allowedTools: choice.allowed_tools.tools.map((tool) => tool.function.name),
  };
}

function toResponseFormat(format: ChatCompletionBody['response_format']): ResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json' };
  const { name, description, schema } = format.json_schema;
  return {
    type: 'json',
    name,
    ...(schema ? { schema: schema as JsonSchema } : {}),
    ...(description ? { description } : {}),
  };
}

/** The turn options a request asks for. */
export function toTurnOptions(body: ChatCompletionBody, tools: ClientToolDefinition[]): TurnOptions {
  const options: TurnOptions = { tools, ...toToolChoice(body.tool_choice) };
  if (typeof body.parallel_tool_calls === 'boolean') options.parallelToolCalls = body.parallel_tool_calls;
  if (typeof body.temperature === 'number') options.temperature = body.temperature;
  if (typeof body.top_p === 'number') options.topP = body.top_p;
  // max_tokens is the older name; max_completion_tokens wins when both are sent.
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens) options.maxOutputTokens = maxTokens;
  const format = toResponseFormat(body.response_format);
  if (format) options.responseFormat = format;
  if (body.reasoning_effort) options.reasoning = { effort: body.reasoning_effort };
  return options;
}

/**
 * Only the settings the request states, for a request that resumes a paused run: what it leaves
 * out keeps the value the run started with.
 */
export function statedTurnOptions(body: ChatCompletionBody, tools: ClientToolDefinition[]): Partial<TurnOptions> {
  const full = toTurnOptions(body, tools);
  const stated: Partial<TurnOptions> = {};
  if (body.tools != null) stated.tools = full.tools;
  if (body.tool_choice != null) {
    stated.toolChoice = full.toolChoice;
    if (full.allowedTools) stated.allowedTools = full.allowedTools;
  }
  if (body.parallel_tool_calls != null) stated.parallelToolCalls = full.parallelToolCalls;
  if (body.temperature != null) stated.temperature = full.temperature;
  if (body.top_p != null) stated.topP = full.topP;
  if (body.max_completion_tokens != null || body.max_tokens != null) stated.maxOutputTokens = full.maxOutputTokens;
  if (body.response_format != null) stated.responseFormat = full.responseFormat;
  if (body.reasoning_effort != null) stated.reasoning = full.reasoning;
  return stated;
}

/** What a new conversation keeps: the request's `metadata`, and `user` when it names one. */
export function conversationMetadata(body: ChatCompletionBody): Record<string, string> {
  const metadata = { ...(body.metadata ?? {}) };
  if (body.user && metadata['user'] === undefined) metadata['user'] = body.user;
  return metadata;
}
