import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import type {
  ClientToolDefinition,
  FinishReason,
  JsonObject,
  ProviderOptions,
  ResponseFormat,
  ToolChoice,
  TurnUsage,
} from '../domain/records.ts';

export interface ModelStepRequest {
  model: LanguageModelV3;
  prompt: LanguageModelV3Prompt;
  tools: readonly ClientToolDefinition[];
  toolChoice: ToolChoice | undefined;
  parallelToolCalls: boolean;
  temperature: number | undefined;
  topP?: number | undefined;
  maxOutputTokens: number | undefined;
  responseFormat?: ResponseFormat | undefined;
  /** The agent's provider options (thinking, reasoning effort…), by provider namespace. */
  providerOptions?: ProviderOptions | undefined;
  /** The request's reasoning settings (Responses `reasoning`), over the agent's OpenAI options. */
  reasoning?: { effort?: string; summary?: string } | undefined;
  maxRetries: number;
  abortSignal: AbortSignal;
}

export interface ModelStepCall {
  /** The provider's id for the call; the engine mints its own and maps it. */
  providerCallId: string;
  name: string;
  /** The arguments as JSON text (or the model's raw text when it was not valid JSON). */
  argumentText: string;
  /** The provider's metadata of the call (a Gemini thought signature, an OpenAI item id). */
  metadata: JsonObject | undefined;
}

/**
 * What the model produced, in the order it produced it: reasoning, text and calls may interleave
 * (Anthropic's interleaved thinking), and providers check that order when it comes back.
 */
export type ModelStepPart =
  /** `index`: the reasoning part's position among the step's reasoning parts, as the handlers saw it. */
  | { type: 'reasoning'; index: number; text: string; metadata: JsonObject | undefined }
  | { type: 'text'; text: string; metadata: JsonObject | undefined }
  | { type: 'call'; call: ModelStepCall };

export interface ModelStepHandlers {
  onTextDelta(delta: string): void;
  /** A reasoning part started (`delta` empty) or grew; `index` numbers the step's reasoning parts. */
  onReasoningDelta(index: number, delta: string): void;
  onCallStarted(providerCallId: string, name: string): void;
  onCallArgumentsDelta(providerCallId: string, delta: string): void;
}

export interface ModelStepResult {
  /** All the step's text, joined. */
  text: string;
  calls: ModelStepCall[];
  parts: ModelStepPart[];
  finishReason: FinishReason;
  usage: TurnUsage;
}

/** The provider kept failing; `attempts` calls were made. */
export class ModelCallError extends Error {
  constructor(
    readonly attempts: number,
    readonly lastError: unknown,
  ) {
    super(
      `The model provider failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
    );
    this.name = 'ModelCallError';
  }
}

export class StepAbortedError extends Error {
  constructor() {
    super('The model step was aborted.');
    this.name = 'StepAbortedError';
  }
}

const INITIAL_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * Runs one model step on an AI SDK provider (`LanguageModelV3.doStream`). Tools carry no code:
 * the engine, not the SDK, decides who runs a call. Calling the provider directly skips the
 * SDK's `streamText` pipeline (schema validation of the whole prompt, telemetry, step
 * machinery), which cost more than everything else in a turn.
 * Retryable provider errors (429, 5xx, network) are retried with exponential backoff, honouring
 * `retry-after` headers; then the step fails with a `ModelCallError`.
 */
export async function runModelStep(request: ModelStepRequest, handlers: ModelStepHandlers): Promise<ModelStepResult> {
  const options: LanguageModelV3CallOptions = {
    prompt: request.prompt,
    abortSignal: request.abortSignal,
    providerOptions: providerOptionsFor(request),
  };
  if (request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters as never,
    }));
    options.toolChoice = toProviderToolChoice(request.toolChoice);
  }
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) options.maxOutputTokens = request.maxOutputTokens;
  if (request.topP !== undefined) options.topP = request.topP;
  if (request.responseFormat?.type === 'json') {
    const { schema, name, description } = request.responseFormat;
    options.responseFormat = {
      type: 'json',
      ...(schema ? { schema: schema as never } : {}),
      ...(name ? { name } : {}),
      ...(description ? { description } : {}),
    };
  }

  const { stream } = await withRetries(() => request.model.doStream(options), request.maxRetries, request.abortSignal);
  const parts: ModelStepPart[] = [];
  type OpenPart = Extract<ModelStepPart, { type: 'reasoning' | 'text' }>;
  const open = new Map<string, OpenPart>();
  const calls: ModelStepCall[] = [];
  let finishReason: FinishReason = 'stop';
  let usage: TurnUsage = { inputTokens: 0, outputTokens: 0 };
  let reasoningParts = 0;
  // Text and reasoning arrive as start/delta/end by id; as the AI SDK's own loop does, the latest
  // metadata a provider sends for a part is the part's (signatures come on the last delta or end).
  const openPart = (type: 'reasoning' | 'text', id: string, metadata: unknown): OpenPart => {
    const part: OpenPart =
      type === 'reasoning'
        ? { type, index: reasoningParts++, text: '', metadata: asMetadata(metadata) }
        : { type, text: '', metadata: asMetadata(metadata) };
    open.set(`${type}:${id}`, part);
    parts.push(part);
    if (part.type === 'reasoning') handlers.onReasoningDelta(part.index, '');
    return part;
  };
  const partOf = (type: 'reasoning' | 'text', id: string, metadata: unknown): OpenPart => {
    const part = open.get(`${type}:${id}`) ?? openPart(type, id, undefined);
    part.metadata = asMetadata(metadata) ?? part.metadata;
    return part;
  };
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const part: LanguageModelV3StreamPart = value;
      switch (part.type) {
        case 'reasoning-start':
        case 'text-start':
          openPart(part.type === 'text-start' ? 'text' : 'reasoning', part.id, part.providerMetadata);
          break;
        case 'reasoning-delta': {
          const reasoning = partOf('reasoning', part.id, part.providerMetadata);
          reasoning.text += part.delta;
          if (reasoning.type === 'reasoning' && part.delta !== '')
            handlers.onReasoningDelta(reasoning.index, part.delta);
          break;
        }
        case 'text-delta':
          partOf('text', part.id, part.providerMetadata).text += part.delta;
          handlers.onTextDelta(part.delta);
          break;
        case 'reasoning-end':
        case 'text-end':
          partOf(part.type === 'text-end' ? 'text' : 'reasoning', part.id, part.providerMetadata);
          break;
        case 'tool-input-start':
          handlers.onCallStarted(part.id, part.toolName);
          break;
        case 'tool-input-delta':
          handlers.onCallArgumentsDelta(part.id, part.delta);
          break;
        case 'tool-call': {
          const call: ModelStepCall = {
            providerCallId: part.toolCallId,
            name: part.toolName,
            argumentText: part.input,
            metadata: asMetadata(part.providerMetadata),
          };
          calls.push(call);
          parts.push({ type: 'call', call });
          break;
        }
        case 'finish':
          finishReason = toFinishReason(part.finishReason.unified);
          usage = toUsage(part.usage);
          break;
        case 'error':
          throw new ModelCallError(1, part.error);
        default:
          break;
      }
    }
  } catch (error) {
    // A stream read to its end needs no release (Node 20 makes an error for it, ~15 µs).
    reader.releaseLock();
    if (request.abortSignal.aborted) throw new StepAbortedError();
    throw error;
  }
  // Empty text parts carry nothing a provider needs; empty reasoning may (redacted or encrypted).
  const kept = parts.filter((part) => part.type !== 'text' || part.text !== '');
  const text = kept.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return { text, calls, parts: kept, finishReason, usage };
}

/**
 * The call's provider options: the agent's, plus what the engine decides itself. Parallel calls
 * follow the agent's setting (read by the scripted provider and OpenAI; other providers ignore
 * unknown keys). An OpenAI agent that keeps nothing at OpenAI (`store: false`) asks for its
 * reasoning's encrypted content, the only way to send that reasoning back after a pause.
 */
function providerOptionsFor(request: ModelStepRequest): LanguageModelV3CallOptions['providerOptions'] {
  const agent = request.providerOptions ?? {};
  const openai: JsonObject = { ...agent.openai, parallelToolCalls: request.parallelToolCalls };
  if (request.reasoning?.effort !== undefined) openai.reasoningEffort = request.reasoning.effort;
  if (request.reasoning?.summary !== undefined) openai.reasoningSummary = request.reasoning.summary;
  if (openai.store === false) {
    const include = Array.isArray(openai.include) ? openai.include : [];
    if (!include.includes('reasoning.encrypted_content')) openai.include = [...include, 'reasoning.encrypted_content'];
  }
  return { ...agent, scripted: { parallelToolCalls: request.parallelToolCalls }, openai };
}

function asMetadata(value: unknown): JsonObject | undefined {
  if (value === undefined || value === null || typeof value !== 'object') return undefined;
  return Object.keys(value).length === 0 ? undefined : (value as JsonObject);
}

function toUsage(usage: Extract<LanguageModelV3StreamPart, { type: 'finish' }>['usage']): TurnUsage {
  const result: TurnUsage = { inputTokens: usage.inputTokens.total ?? 0, outputTokens: usage.outputTokens.total ?? 0 };
  if (usage.inputTokens.cacheRead !== undefined) result.cachedInputTokens = usage.inputTokens.cacheRead;
  if (usage.outputTokens.reasoning !== undefined) result.reasoningTokens = usage.outputTokens.reasoning;
  return result;
}

async function withRetries<T>(call: () => PromiseLike<T>, maxRetries: number, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (signal.aborted) throw new StepAbortedError();
      const retryable = APICallError.isInstance(error) ? error.isRetryable : isNetworkError(error);
      if (!retryable || attempt > maxRetries) throw new ModelCallError(attempt, error);
      await sleep(backoffMs(error, attempt), signal);
    }
  }
}

function isNetworkError(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /fetch failed|network|ECONN|socket/i.test(`${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`)
  );
}

function backoffMs(error: unknown, attempt: number): number {
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  const retryAfterMs = Number(headers?.['retry-after-ms']);
  if (Number.isFinite(retryAfterMs) && retryAfterMs >= 0 && retryAfterMs <= MAX_BACKOFF_MS) return retryAfterMs;
  const retryAfter = Number(headers?.['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter >= 0 && retryAfter * 1000 <= MAX_BACKOFF_MS) return retryAfter * 1000;
  return Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** (attempt - 1));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new StepAbortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function toProviderToolChoice(choice: ToolChoice | undefined): LanguageModelV3CallOptions['toolChoice'] {
  if (choice === undefined || choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'required' };
  return { type: 'tool', toolName: choice.name };
}

function toFinishReason(reason: string): FinishReason {
  if (reason === 'tool-calls') return 'tool_use';
  if (reason === 'length') return 'length';
  return 'stop';
}
