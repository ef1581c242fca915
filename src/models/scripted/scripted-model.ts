import { APICallError } from '@ai-sdk/provider';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { ScriptedProgram, ScriptedProgramState } from './scripted-program-contract.ts';
import { readScriptedTurn } from './scripted-turn.ts';
import { answerInFormat } from './structured-answer.ts';
import { promptTokens } from './prompt-tokens.ts';
import { countTokens } from './text-analysis.ts';

/**
 * A deterministic, offline `LanguageModelV3`. A `ScriptedProgram` decides each step (text, tool
 * calls or a simulated API failure); this class renders that decision exactly like a network
 * provider would, including a chunked stream, so the engine and the AI SDK exercise the same code
 * paths as with a real model.
 *
 * State kept per instance: the tool-call id counter and the hit counters that `fail` rules use
 * ("fail the first 2 matching calls"), which is why the registry caches one instance per id.
 */
export class ScriptedLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'scripted';
  readonly supportedUrls: Record<string, RegExp[]> = {};

  private toolCallCounter = 0;
  private textCounter = 0;
  private responseCounter = 0;
  private readonly hits = new Map<string, number>();
  private readonly state: ScriptedProgramState = {
    hit: (key) => {
      const count = (this.hits.get(key) ?? 0) + 1;
      this.hits.set(key, count);
      return count;
    },
  };

  constructor(
    readonly modelId: string,
    private readonly program: ScriptedProgram,
  ) {}

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const step = this.step(options);
    const content: LanguageModelV3Content[] =
      step.kind === 'text'
        ? step.text === ''
          ? []
          : [{ type: 'text', text: step.text }]
        : step.calls.map((call) => ({ type: 'tool-call', ...call }));
    return {
      content,
      finishReason: step.finishReason,
      usage: step.usage,
      response: { id: step.responseId, timestamp: new Date(), modelId: this.modelId },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    // Failures are thrown here, before the stream exists, like an HTTP error status would be:
    // that is the only place where the AI SDK retries.
    const step = this.step(options);
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: step.responseId, timestamp: new Date(), modelId: this.modelId },
    ];
    if (step.kind === 'text') {
      if (step.text !== '') {
        const id = `scripted_text_${++this.textCounter}`;
        parts.push({ type: 'text-start', id });
        for (const delta of splitWords(step.text)) parts.push({ type: 'text-delta', id, delta });
        parts.push({ type: 'text-end', id });
      }
    } else {
      for (const call of step.calls) {
        parts.push({ type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName });
        for (const delta of splitJson(call.input)) {
          parts.push({ type: 'tool-input-delta', id: call.toolCallId, delta });
        }
        parts.push({ type: 'tool-input-end', id: call.toolCallId });
        parts.push({ type: 'tool-call', ...call });
      }
    }
    parts.push({ type: 'finish', usage: step.usage, finishReason: step.finishReason });

    const signal = options.abortSignal;
    let abort = () => {};
    // Every part is queued at once, as a network provider's arrive once its answer is in: a part
    // pulled at a time made each read a pull, a few promises, and the stream's own functions, a
    // few percent of a round trip. The consumer still reads them one at a time; an abort while it
    // reads ends the stream with the signal's reason at the next read, the queued parts discarded.
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        if (signal?.aborted) {
          controller.error(signal.reason);
          return;
        }
        for (const part of parts) controller.enqueue(part);
        abort = () => controller.error(signal?.reason);
        signal?.addEventListener('abort', abort, { once: true });
      },
      // Asked for more once every part was read: the stream ends and stops listening to the signal
      // (which outlives it: one signal serves every step of a turn).
      pull(controller) {
        signal?.removeEventListener('abort', abort);
        controller.close();
      },
      cancel() {
        signal?.removeEventListener('abort', abort);
      },
    });
    return { stream };
  }

  private step(options: LanguageModelV3CallOptions): Step {
    options.abortSignal?.throwIfAborted();
    const turn = readScriptedTurn(options);
    const decision = this.program.decide(turn, this.state);
    const responseId = `scripted_resp_${++this.responseCounter}`;
    const inputTokens = promptTokens(options.prompt);

    if (decision.kind === 'fail') {
      throw new APICallError({
        message: decision.message,
        url: `scripted://${this.modelId}`,
        requestBodyValues: { model: this.modelId, prompt: options.prompt },
        statusCode: decision.status,
        responseHeaders:
          decision.retryAfterMs === undefined ? undefined : { 'retry-after-ms': String(decision.retryAfterMs) },
        responseBody: JSON.stringify({ error: { message: decision.message } }),
        // Same classification as the HTTP providers: throttling and server errors are transient.
        isRetryable: decision.status === 408 || decision.status === 429 || decision.status >= 500,
      });
    }

    if (decision.kind === 'tool-calls' && decision.calls.length > 0) {
      // Mirrors `parallel_tool_calls: false` on real providers: only the first call survives.
      const plans = turn.parallelToolCalls ? decision.calls : decision.calls.slice(0, 1);
      const calls = plans.map((plan) => ({
        toolCallId: `scripted_call_${++this.toolCallCounter}`,
        toolName: plan.toolName,
        input: JSON.stringify(plan.input),
      }));
      const outputTokens = calls.reduce(
        (sum, call) => sum + 1 + countTokens(call.input.replace(/[{}[\]",:]/g, ' ')),
        0,
      );
      return {
        kind: 'tool-calls',
        calls,
        responseId,
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(inputTokens, outputTokens),
      };
    }

    // Under a JSON response format the answer is JSON of that schema, whatever the program said.
    const text = answerInFormat(turn, decision.kind === 'text' ? decision.text : '');
    return {
      kind: 'text',
      text,
      responseId,
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(inputTokens, countTokens(text)),
    };
  }
}

interface StepBase {
  readonly responseId: string;
  readonly finishReason: LanguageModelV3FinishReason;
  readonly usage: LanguageModelV3Usage;
}

type Step =
  | (StepBase & { readonly kind: 'text'; readonly text: string })
  | (StepBase & {
      readonly kind: 'tool-calls';
      readonly calls: readonly { toolCallId: string; toolName: string; input: string }[];
    });

function usage(input: number, output: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** "The refund was approved." → ["The", " refund", " was", " approved."]: one delta per word. */
function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*$|\s*\S+/g) ?? [text];
}

/** Splits a JSON text into at least two roughly equal pieces, as providers stream arguments. */
function splitJson(json: string): string[] {
  const count = Math.max(2, Math.ceil(json.length / 16));
  const size = Math.max(1, Math.ceil(json.length / count));
  const pieces: string[] = [];
  for (let offset = 0; offset < json.length; offset += size) pieces.push(json.slice(offset, offset + size));
  return pieces;
}
