import type { FromSchema, JsonSchema } from './from-schema.ts';

/** What a handler knows about the call it runs. */
export interface ToolContext {
  callId: string;
  toolName: string;
  /** The conversation: the thread id (Threads, and the conversation behind a Responses run), or the CES session name. */
  threadId: string;
  face: 'threads' | 'responses' | 'ces';
  /** Aborts when the run is aborted or the handler's timeout passes: stop work, nobody will read the result. */
  signal: AbortSignal;
}

export type ToolInput = Record<string, unknown>;

/**
 * A client tool's implementation. A string result is sent as is, anything else as JSON; a thrown
 * error becomes an `is_error` result carrying its message, so the model can react to it.
 */
export type ToolHandler<I = ToolInput> = (input: I, context: ToolContext) => unknown;

/** A handler with settings. Method syntax on purpose: tools with differently typed inputs share one list. */
export interface ToolEntry<I = ToolInput> {
  handler(input: I, context: ToolContext): unknown;
  /** Overrides the run's `handlerTimeoutMs` for this tool. */
  timeoutMs?: number;
  description?: string;
  /** The JSON Schema of the input; declared to the model where a face takes per-request tools. */
  parameters?: JsonSchema;
}

export interface DefinedTool<I = ToolInput> extends ToolEntry<I> {
  readonly name: string;
}

/** Handlers by tool name (functions or entries), or a list of `defineTool` results. */
export type ToolsInput = Readonly<Record<string, ToolHandler | ToolEntry>> | readonly DefinedTool[];

/**
 * A tool whose handler input is typed from its JSON Schema:
 *
 * ```ts
 * const weather = defineTool({
 *   name: 'get_weather',
 *   parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
 *   handler: async ({ city }) => ({ city, celsius: 18 }), // city: string
 * });
 * ```
 */
export function defineTool<const S extends JsonSchema>(definition: {
  name: string;
  description?: string;
  parameters: S;
  timeoutMs?: number;
  handler: (input: FromSchema<S>, context: ToolContext) => unknown;
}): DefinedTool<FromSchema<S>> {
  return { ...definition };
}
