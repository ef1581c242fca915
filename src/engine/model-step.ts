import type { LanguageModelV3 } from '@ai-sdk/provider';
import { jsonSchema, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
import type { ClientToolDefinition, FinishReason, ToolChoice, TurnUsage } from '../store/records.ts';

export interface ModelStepRequest {
  model: LanguageModelV3;
  instructions: string;
  messages: ModelMessage[];
  tools: readonly ClientToolDefinition[];
  toolChoice: ToolChoice | undefined;
  parallelToolCalls: boolean;
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
  maxRetries: number;
  abortSignal: AbortSignal;
}

export interface ModelStepCall {
  /** The provider's id for the call; the engine mints its own and maps it. */
  providerCallId: string;
  name: string;
  /** The arguments as JSON text (or the model's raw text when it was not valid JSON). */
  argumentText: string;
}

export interface ModelStepHandlers {
  onTextDelta(delta: string): void;
  onCallStarted(providerCallId: string, name: string): void;
  onCallArgumentsDelta(providerCallId: string, delta: string): void;
}

export interface ModelStepResult {
  text: string;
  calls: ModelStepCall[];
  finishReason: FinishReason;
  usage: TurnUsage;
}

/**
 * Runs one model step through the AI SDK. Tools are declared without `execute`, so the SDK stops
 * after the step and hands the calls back: the engine, not the SDK, decides who runs them.
 * Provider errors are retried by the SDK with exponential backoff (`maxRetries`); the last one is thrown.
 */
export async function runModelStep(request: ModelStepRequest, handlers: ModelStepHandlers): Promise<ModelStepResult> {
  const toolSet: ToolSet = {};
  for (const definition of request.tools) {
    toolSet[definition.name] = tool({ description: definition.description, inputSchema: jsonSchema(definition.parameters) });
  }
  const result = streamText({
    model: request.model,
    ...(request.instructions ? { system: request.instructions } : {}),
    messages: request.messages,
    ...(request.tools.length > 0 ? { tools: toolSet, toolChoice: toSdkToolChoice(request.toolChoice) } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
    maxRetries: request.maxRetries,
    abortSignal: request.abortSignal,
    // Read by the scripted provider; real providers ignore unknown namespaces.
    providerOptions: {
      scripted: { parallelToolCalls: request.parallelToolCalls },
      openai: { parallelToolCalls: request.parallelToolCalls },
    },
    // Errors surface through the stream and are rethrown below; the default handler would print them.
    onError: () => {},
  });

  let text = '';
  const calls: ModelStepCall[] = [];
  let finishReason: FinishReason = 'stop';
  let usage: TurnUsage = { inputTokens: 0, outputTokens: 0 };
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        text += part.text;
        handlers.onTextDelta(part.text);
        break;
      case 'tool-input-start':
        handlers.onCallStarted(part.id, part.toolName);
        break;
      case 'tool-input-delta':
        handlers.onCallArgumentsDelta(part.id, part.delta);
        break;
      case 'tool-call':
        calls.push({
          providerCallId: part.toolCallId,
          name: part.toolName,
          argumentText: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}),
        });
        break;
      case 'finish':
        finishReason = toFinishReason(part.finishReason);
        usage = { inputTokens: part.totalUsage.inputTokens ?? 0, outputTokens: part.totalUsage.outputTokens ?? 0 };
        break;
      case 'error':
        throw part.error;
      case 'abort':
        throw new StepAbortedError();
      default:
        break;
    }
  }
  return { text, calls, finishReason, usage };
}

export class StepAbortedError extends Error {
  constructor() {
    super('The model step was aborted.');
    this.name = 'StepAbortedError';
  }
}

function toSdkToolChoice(choice: ToolChoice | undefined) {
  if (choice === undefined) return 'auto' as const;
  if (typeof choice === 'string') return choice;
  return { type: 'tool' as const, toolName: choice.name };
}

function toFinishReason(reason: string): FinishReason {
  if (reason === 'tool-calls') return 'tool_use';
  if (reason === 'length') return 'length';
  return 'stop';
}
