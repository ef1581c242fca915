import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3ToolChoice,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';

/**
 * A read-only view of one model call, distilled from `LanguageModelV3CallOptions` into what the
 * scripted programs decide on. Keeping this separate from the programs means the YAML rules and
 * the auto program agree on what "the last user message" or "the last tool result" is.
 */
export interface ScriptedTurn {
  readonly prompt: LanguageModelV3Prompt;
  /** Role of the last prompt message; undefined for an empty prompt. */
  readonly lastRole: 'system' | 'user' | 'assistant' | 'tool' | undefined;
  /** Text of the last user message anywhere in the prompt (text parts joined by newlines). */
  readonly lastUserText: string | undefined;
  /** Results in the last message when it is a tool message, in order; empty otherwise. */
  readonly toolResults: readonly ScriptedToolResult[];
  /** Function tools offered to the model (provider tools are ignored: the scripted model has none). */
  readonly tools: readonly LanguageModelV3FunctionTool[];
  readonly toolChoice: LanguageModelV3ToolChoice;
  /** False when the caller passed `providerOptions.scripted.parallelToolCalls: false`. */
  readonly parallelToolCalls: boolean;
  /** The shape a text answer must take: JSON (with a JSON Schema, under `text.format`), or any text. */
  readonly responseFormat: LanguageModelV3CallOptions['responseFormat'];
}

export interface ScriptedToolResult {
  readonly toolCallId: string;
  /** Name from the assistant tool call with the same id, falling back to the result's own name. */
  readonly toolName: string;
  /** `denied` is an `execution-denied` output: the tool never ran. */
  readonly status: 'ok' | 'error' | 'denied';
  /** Plain-text rendering: the text itself, or compact JSON. */
  readonly text: string;
  /** The JSON value when the output is JSON or text that parses as JSON; undefined otherwise. */
  readonly value: unknown;
}

export function readScriptedTurn(options: LanguageModelV3CallOptions): ScriptedTurn {
  const prompt = options.prompt;
  const last = prompt[prompt.length - 1];

  const toolResults: ScriptedToolResult[] = [];
  if (last?.role === 'tool') {
    // The result parts carry a toolName too, but the assistant's call is the authority on what
    // was called (an engine may rewrite result names), so ids are resolved against the calls.
    const callNames = callNamesOf(
      prompt,
      last.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])),
    );
    for (const part of last.content) {
      if (part.type !== 'tool-result') continue;
      toolResults.push({
        toolCallId: part.toolCallId,
        toolName: callNames.get(part.toolCallId) ?? part.toolName,
        ...renderOutput(part.output),
      });
    }
  }

  const tools = (options.tools ?? []).filter((tool): tool is LanguageModelV3FunctionTool => tool.type === 'function');
  const scriptedOptions = options.providerOptions?.['scripted'];

  return {
    prompt,
    lastRole: last?.role,
    lastUserText: lastUserTextOf(prompt),
    toolResults,
    tools,
    toolChoice: options.toolChoice ?? { type: 'auto' },
    parallelToolCalls: scriptedOptions?.['parallelToolCalls'] !== false,
    responseFormat: options.responseFormat,
  };
}

/**
 * The names the assistant's calls gave `callIds`, latest first. The prompt is read from its end and
 * only as far back as the calls: a long history costs nothing here.
 */
function callNamesOf(prompt: LanguageModelV3Prompt, callIds: readonly string[]): Map<string, string> {
  const wanted = new Set(callIds);
  const names = new Map<string, string>();
  for (let index = prompt.length - 1; index >= 0 && names.size < wanted.size; index--) {
    const message = prompt[index];
    if (message?.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && wanted.has(part.toolCallId) && !names.has(part.toolCallId))
        names.set(part.toolCallId, part.toolName);
    }
  }
  return names;
}

function lastUserTextOf(prompt: LanguageModelV3Prompt): string | undefined {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index];
    if (message?.role === 'user')
      return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  }
  return undefined;
}

function renderOutput(output: LanguageModelV3ToolResultOutput): Pick<ScriptedToolResult, 'status' | 'text' | 'value'> {
  switch (output.type) {
    case 'text':
      return { status: 'ok', text: output.value, value: parseJson(output.value) };
    case 'json':
      return { status: 'ok', text: stringify(output.value), value: output.value };
    case 'error-text':
      return { status: 'error', text: output.value, value: parseJson(output.value) };
    case 'error-json':
      return { status: 'error', text: errorMessageOf(output.value), value: output.value };
    case 'execution-denied':
      return { status: 'denied', text: output.reason ?? 'execution denied', value: undefined };
    case 'content': {
      const text = output.value.flatMap((item) => (item.type === 'text' ? [item.text] : [])).join('\n');
      return { status: 'ok', text, value: parseJson(text) };
    }
  }
}

/** Error JSON usually looks like `{ message }` or `{ error }`; a bare object is shown as JSON. */
function errorMessageOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of ['message', 'error', 'detail', 'reason']) {
      const candidate = record[key];
      if (typeof candidate === 'string') return candidate;
    }
  }
  return stringify(value);
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  // Only structured JSON is interesting for templates; "42" or "true" stay plain text.
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}
