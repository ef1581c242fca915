import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ErrorCode } from '../../domain/errors/error-catalogue.ts';
import type { InputItem, ItemReference, ResponseInput } from '../../engine/index.ts';
import type {
  ClientToolDefinition,
  ContentPart,
  JsonObject,
  JsonSchema,
  ResponseFormat,
  ToolChoice,
  TurnOptions,
} from '../../domain/records.ts';
import { isBatonReasoningId, itemReference } from './item-references.ts';
import { decodeCompaction } from './response-compaction.ts';
import type { ContentPartWire, CreateResponseBody, FunctionToolWire, InputItemWire } from './response-wire.ts';
import { functionToolWire } from './response-wire.ts';

/** Input items in engine terms, each with where it came from in the request (for errors). */
const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(?:;[^,]*)?;base64,([A-Za-z0-9+/]*={0,2})$/i;

function invalid(param: string, message: string, code: ErrorCode = 'invalid_value'): BatonError {
  return new BatonError(code, message, { param });
}

function unsupportedFileId(param: string): BatonError {
  return invalid(
    param,
    `${param}.file_id is not supported: Baton has no Files API. Send the content inline (a base64 data URL or file_data) or by URL.`,
    'unsupported_file_id',
  );
}

/** Converts one content part; assistant text and refusals become text. */
function toContentPart(part: ContentPartWire, param: string): ContentPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'input_image': {
      if (part.file_id) throw unsupportedFileId(param);
      const url = part.image_url;
      if (!url)
        throw invalid(
          `${param}.image_url`,
          `${param} needs an image_url (a data: URL with base64 content, or an http(s) URL).`,
        );
      const data = DATA_URL.exec(url);
      if (data) return { type: 'image', mediaType: (data[1] ?? '').toLowerCase(), data: data[2] ?? '' };
      if (/^https?:\/\//i.test(url)) return { type: 'file', mediaType: 'image/*', data: null, url, filename: null };
      throw invalid(
        `${param}.image_url`,
        `${param}.image_url must be a base64 data URL (data:image/png;base64,…) or an http(s) URL.`,
      );
    }
    case 'input_file': {
      if (part.file_id) throw unsupportedFileId(param);
      const filename = part.filename ?? null;
      if (part.file_data) {
        const data = DATA_URL.exec(part.file_data);
        if (data)
          return { type: 'file', mediaType: (data[1] ?? '').toLowerCase(), data: data[2] ?? '', url: null, filename };
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(part.file_data))
          throw invalid(`${param}.file_data`, `${param}.file_data must be base64 or a base64 data URL.`);
        return { type: 'file', mediaType: mediaTypeOf(filename), data: part.file_data, url: null, filename };
      }
      if (part.file_url) {
        if (!/^https?:\/\//i.test(part.file_url))
          throw invalid(`${param}.file_url`, `${param}.file_url must be an http(s) URL.`);
        return {
          type: 'file',
          mediaType: mediaTypeOf(filename ?? part.file_url),
          data: null,
          url: part.file_url,
          filename,
        };
      }
      throw invalid(param, `${param} needs file_data (base64) or file_url.`);
    }
  }
}

function mediaTypeOf(name: string | null): string {
  const extension = name?.toLowerCase().match(/\.([a-z0-9]+)(?:\?.*)?$/)?.[1];
  const known: Record<string, string> = {
    pdf: 'application/pdf',
    txt: 'text/plain',
    md: 'text/markdown',
    csv: 'text/csv',
    json: 'application/json',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
  };
  return (extension && known[extension]) ?? 'application/octet-stream';
}

function outputToContent(output: string | ContentPartWire[], param: string): ContentPart[] {
  if (typeof output === 'string') return output === '' ? [] : [{ type: 'text', text: output }];
  return output.map((part, index) => toContentPart(part, `${param}.output[${index}]`));
}

/** Converts `input` (a string or items) to engine input items. */
export function toInputItems(input: CreateResponseBody['input']): ResponseInput {
  if (input === undefined || input === null) return { items: [], params: [] };
  if (typeof input === 'string')
    return { items: [{ type: 'message', role: 'user', content: [{ type: 'text', text: input }] }], params: ['input'] };
  const items: (InputItem | ItemReference)[] = [];
  const params: string[] = [];
  input.forEach((item: InputItemWire, index) => {
    const param = `input[${index}]`;
    const add = (converted: InputItem | ItemReference) => {
      items.push(converted);
      params.push(param);
    };
    if (!('type' in item) || item.type === undefined || item.type === 'message') {
      if (!('role' in item)) {
        add(itemReference(item.id));
        return;
      }
      const content =
        typeof item.content === 'string'
          ? [{ type: 'text' as const, text: item.content }]
          : item.content.map((part, i) => toContentPart(part, `${param}.content[${i}]`));
      const role = item.role === 'developer' ? 'system' : item.role;
      add({ type: 'message', role, content, ...(item.phase ? { phase: item.phase } : {}) });
      return;
    }
    switch (item.type) {
      case 'function_call': {
        const call = {
          type: 'function_call' as const,
          callId: item.call_id,
          name: item.name,
          arguments: item.arguments,
        };
        // A call Baton output, replayed whole: the stored one goes back to the model with what its
        // provider attached (an OpenAI call must follow its reasoning item under the provider's id).
        add(item.id?.startsWith('fc_') ? { ...itemReference(item.id), fallback: call } : call);
        return;
      }
      case 'function_call_output':
        add({
          type: 'function_call_output',
          callId: item.call_id,
          output: outputToContent(item.output, param),
          isError: false,
        });
        return;
      // A replayed server call and its result are history, like a replayed client call and its output.
      case 'baton:tool_call':
        add({ type: 'function_call', callId: item.call_id, name: item.name, arguments: item.arguments });
        return;
      case 'baton:tool_result':
        add({
          type: 'function_call_output',
          callId: item.call_id,
          output: outputToContent(item.output, param),
          isError: item.is_error ?? false,
        });
        return;
      case 'reasoning':
        // Baton's own reasoning comes back from the store, signatures and all; another system's
        // reasoning cannot be replayed to our model, so it is context we drop.
        if (item.id !== undefined && isBatonReasoningId(item.id)) add(itemReference(item.id));
        return;
      case 'compaction':
        for (const message of decodeCompaction(item.encrypted_content, `${param}.encrypted_content`)) add(message);
        return;
      case 'item_reference':
        add(itemReference(item.id));
        return;
    }
  });
  return { items, params };
}

function parseTool(tool: unknown, index: number): FunctionToolWire {
  const result = functionToolWire.safeParse(tool);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  const param = `tools[${index}]${field ? `.${field}` : ''}`;
  const message =
    issue?.code === 'unrecognized_keys'
      ? `unknown field(s) ${issue.keys.map((key) => `'${key}'`).join(', ')}`
      : (issue?.message ?? 'invalid value');
  throw invalid(param, `Invalid tool at ${param}: ${message}.`, 'invalid_request');
}

/** Parses `tools`: function tools only, each checked here for shape; names and schemas by the engine. */
export function toFunctionTools(tools: CreateResponseBody['tools']): {
  wire: FunctionToolWire[];
  definitions: ClientToolDefinition[];
} {
  const wire: FunctionToolWire[] = [];
  (tools ?? []).forEach((tool, index) => {
    const type = typeof tool === 'object' && tool !== null ? (tool as { type?: unknown }).type : undefined;
    if (type !== 'function') {
      throw invalid(
        `tools[${index}].type`,
        `Tool type '${String(type)}' at tools[${index}] is not supported: Baton serves function tools ` +
          `({"type":"function","name",…}); server-side tools are configured on the agent.`,
        'unsupported_tool_type',
      );
    }
    wire.push(parseTool(tool, index));
  });
  return {
    wire,
    definitions: wire.map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      parameters: (tool.parameters ?? { type: 'object', properties: {} }) as JsonSchema,
      ...(tool.executor !== undefined ? { executor: tool.executor } : {}),
      ...(tool.max_attempts !== undefined ? { maxAttempts: tool.max_attempts } : {}),
    })),
  };
}

function toToolChoice(choice: CreateResponseBody['tool_choice']): { toolChoice?: ToolChoice; allowedTools?: string[] } {
  if (!choice) return {};
  if (typeof choice === 'string') return { toolChoice: choice };
  if (choice.type === 'function') return { toolChoice: { type: 'tool', name: choice.name } };
  return { toolChoice: choice.mode ?? 'auto', allowedTools: choice.tools.map((tool) => tool.name) };
}

function toResponseFormat(format: NonNullable<CreateResponseBody['text']>['format']): ResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json' };
  return {
    type: 'json',
    schema: format.schema as JsonSchema,
    name: format.name,
    ...(format.description ? { description: format.description } : {}),
  };
}

/** The turn options a create request asks for. */
export function toTurnOptions(body: CreateResponseBody, tools: ClientToolDefinition[]): TurnOptions {
  const options: TurnOptions = { tools, ...toToolChoice(body.tool_choice) };
  if (typeof body.parallel_tool_calls === 'boolean') options.parallelToolCalls = body.parallel_tool_calls;
  if (body.max_tool_calls) options.maxToolCalls = body.max_tool_calls;
  if (body.instructions) options.instructions = body.instructions;
  if (typeof body.temperature === 'number') options.temperature = body.temperature;
  if (typeof body.top_p === 'number') options.topP = body.top_p;
  if (body.max_output_tokens) options.maxOutputTokens = body.max_output_tokens;
  const format = toResponseFormat(body.text?.format);
  if (format) options.responseFormat = format;
  if (body.reasoning?.effort || body.reasoning?.summary)
    options.reasoning = {
      ...(body.reasoning.effort ? { effort: body.reasoning.effort } : {}),
      ...(body.reasoning.summary ? { summary: body.reasoning.summary } : {}),
    };
  return options;
}

/**
 * Only the settings the request states, for a request that continues a paused turn: what it
 * leaves out keeps the value the turn started with.
 */
export function statedTurnOptions(body: CreateResponseBody, tools: ClientToolDefinition[]): Partial<TurnOptions> {
  const full = toTurnOptions(body, tools);
  const stated: Partial<TurnOptions> = {};
  if (body.tools != null) stated.tools = full.tools;
  if (body.tool_choice != null) {
    stated.toolChoice = full.toolChoice;
    stated.allowedTools = full.allowedTools;
  }
  if (body.parallel_tool_calls != null) stated.parallelToolCalls = full.parallelToolCalls;
  if (body.max_tool_calls != null) stated.maxToolCalls = full.maxToolCalls;
  if (body.instructions != null) stated.instructions = full.instructions;
  if (body.temperature != null) stated.temperature = full.temperature;
  if (body.top_p != null) stated.topP = full.topP;
  if (body.max_output_tokens != null) stated.maxOutputTokens = full.maxOutputTokens;
  if (body.text?.format != null) stated.responseFormat = full.responseFormat;
  if (body.reasoning != null) stated.reasoning = full.reasoning;
  return stated;
}

/** The request fields a response echoes back, with the spec's defaults for what was left out. */
export function toEcho(body: CreateResponseBody, model: string, tools: FunctionToolWire[]): JsonObject {
  return {
    model,
    instructions: body.instructions ?? null,
    tools: tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: (tool.parameters ?? null) as JsonObject | null,
      strict: tool.strict ?? null,
    })),
    tool_choice: (body.tool_choice ?? 'auto') as JsonObject | string,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    max_tool_calls: body.max_tool_calls ?? null,
    text: {
      format: (body.text?.format ?? { type: 'text' }) as JsonObject,
      ...(body.text?.verbosity ? { verbosity: body.text.verbosity } : {}),
    },
    reasoning: body.reasoning
      ? { effort: body.reasoning.effort ?? null, summary: body.reasoning.summary ?? null }
      : null,
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    presence_penalty: body.presence_penalty ?? 0,
    frequency_penalty: body.frequency_penalty ?? 0,
    top_logprobs: body.top_logprobs ?? 0,
    max_output_tokens: body.max_output_tokens ?? null,
    truncation: body.truncation ?? 'disabled',
    service_tier: body.service_tier ?? 'default',
    metadata: body.metadata ?? {},
    store: body.store ?? true,
    background: body.background ?? false,
    safety_identifier: body.safety_identifier ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
  };
}
