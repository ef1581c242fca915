import type { Transport } from '../http/transport.ts';
import { ResponsesFace } from '../runner/responses-face.ts';
import { DEFAULT_HANDLER_TIMEOUT_MS } from '../runner/run-handlers.ts';
import { DEFAULT_MAX_ROUNDS, runLoop } from '../runner/run-loop.ts';
import type { RunOptions, RunResult } from '../runner/run-types.ts';
import { ToolRegistry } from '../runner/tool-registry.ts';
import type { CreateResponseBody, ResponseInputItem, ResponseObject } from '../wire/responses.ts';
import { callSettings, type CallOptions } from './call-options.ts';
import type { ToolCalls } from './tool-calls.ts';

export interface ResponseResumeOptions extends RunOptions<ResponseObject> {
  /** After an abort, also cancel the latest response (pending calls get synthetic results). Default false: it stays resumable. */
  cancelOnAbort?: boolean;
}

export interface ResponseRunParams extends ResponseResumeOptions {
  /** An agent of the app (`refund-desk`) or a provider model (`scripted:auto`). Omit when continuing. */
  model?: string;
  input: string | ResponseInputItem[];
  instructions?: string;
  /** Continue the conversation of an earlier run (its `responseId`). */
  previousResponseId?: string;
  /** Other fields of the first request (`metadata`, `tool_choice`, `temperature`, …). */
  extra?: Omit<CreateResponseBody, 'model' | 'input' | 'instructions' | 'previous_response_id' | 'stream'>;
}

/** `/v1/responses` (Open Responses, OpenAI-compatible), and the tool loop over it. */
export class Responses {
  constructor(
    private readonly http: Transport,
    private readonly toolCalls: ToolCalls,
    private readonly defaults: { pollIntervalMs: number },
  ) {}

  /** `POST /v1/responses` as is (no streaming: use an SSE client or the `openai` package for that). */
  create(body: CreateResponseBody, options?: CallOptions): Promise<ResponseObject> {
    return this.http.json({ method: 'POST', path: '/v1/responses', body, ...callSettings(options) });
  }

  get(id: string, options?: CallOptions): Promise<ResponseObject> {
    return this.http.json({ method: 'GET', path: `/v1/responses/${encodeURIComponent(id)}`, ...callSettings(options) });
  }

  /** Cancels a running or paused response; its pending calls get synthetic results. */
  cancel(id: string, options?: CallOptions): Promise<ResponseObject> {
    return this.http.json({
      method: 'POST',
      path: `/v1/responses/${encodeURIComponent(id)}/cancel`,
      body: {},
      ...callSettings(options),
    });
  }

  /**
   * Creates a response and runs the tool loop: every `function_call` of a step goes to its handler,
   * all at once, and the outputs go back in one request with `previous_response_id`, until the
   * model answers in text. Tools defined with a schema are declared in the request.
   */
  run(params: ResponseRunParams): Promise<RunResult<ResponseObject>> {
    const registry = new ToolRegistry(params.tools, params.fallback);
    const declarations = params.declareTools === false ? [] : registry.declarations();
    const body: CreateResponseBody = {
      ...params.extra,
      ...(params.model !== undefined ? { model: params.model } : {}),
      input: params.input,
      ...(params.instructions !== undefined ? { instructions: params.instructions } : {}),
      ...(params.previousResponseId !== undefined ? { previous_response_id: params.previousResponseId } : {}),
      ...(declarations.length > 0
        ? {
            tools: declarations.map((tool) => ({
              type: 'function' as const,
              name: tool.name,
              ...(tool.description !== undefined ? { description: tool.description } : {}),
              parameters: { ...tool.parameters },
            })),
          }
        : {}),
    };
    return this.loop(body, registry, params);
  }

  /** Answers the calls a response already waits on (e.g. after the client restarted) and runs on to the answer. */
  resume(responseId: string, options: ResponseResumeOptions = {}): Promise<RunResult<ResponseObject>> {
    return this.loop({ resume: responseId }, new ToolRegistry(options.tools, options.fallback), options);
  }

  private loop(
    start: CreateResponseBody | { resume: string },
    registry: ToolRegistry,
    options: ResponseResumeOptions,
  ): Promise<RunResult<ResponseObject>> {
    const face = new ResponsesFace({
      http: this.http,
      toolCalls: this.toolCalls,
      start,
      pollIntervalMs: options.pollIntervalMs ?? this.defaults.pollIntervalMs,
      onApproval: options.onApproval,
      cancelOnAbort: options.cancelOnAbort ?? false,
    });
    return runLoop(face, {
      registry,
      handlerTimeoutMs: options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
      maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS,
      signal: options.signal,
      emit: options.onEvent ?? (() => {}),
    });
  }
}
