import type { Transport } from '../http/transport.ts';
import { iterateEvents } from '../runner/event-stream.ts';
import { DEFAULT_HANDLER_TIMEOUT_MS } from '../runner/run-handlers.ts';
import { DEFAULT_MAX_ROUNDS, runLoop } from '../runner/run-loop.ts';
import type { RunEvent, RunOptions, RunResult } from '../runner/run-types.ts';
import type { ThreadReply } from '../runner/thread-steps.ts';
import { ThreadsFace, type ThreadMessageSettings } from '../runner/threads-face.ts';
import { ToolRegistry } from '../runner/tool-registry.ts';
import type { Page } from '../wire/common.ts';
import type {
  CancelledThread,
  ConversationExport,
  CreateThreadBody,
  DeletedThread,
  MessageResponse,
  PostMessageBody,
  HeldToolResults,
  QueuedMessage,
  Thread,
  ThreadMessage,
  ToolResultInput,
} from '../wire/threads.ts';
import { callSettings, type CallOptions } from './call-options.ts';
import type { ToolCalls } from './tool-calls.ts';

export interface ThreadRunOptions extends RunOptions<ThreadReply> {
  /** After an abort, also cancel the turn (pending calls get synthetic results). Default false: the thread stays resumable. */
  cancelOnAbort?: boolean;
  /** Settings sent with the input message (`tool_choice`, `max_steps`, …). */
  message?: ThreadMessageSettings;
}

const PAGE_LIMIT = 1000;

/** `/v1/threads`: conversations with an agent, and the tool loop over them. */
export class Threads {
  constructor(
    private readonly http: Transport,
    private readonly toolCalls: ToolCalls,
    private readonly defaults: { pollIntervalMs: number },
  ) {}

  create(body: CreateThreadBody, options?: CallOptions): Promise<Thread> {
    return this.http.json({ method: 'POST', path: '/v1/threads', body, ...callSettings(options) });
  }

  /** Every conversation of the app (threads, Responses chains, CES sessions), newest first. */
  list(query: { agent?: string; limit?: number; after?: string } = {}, options?: CallOptions): Promise<Page<Thread>> {
    return this.http.json({ method: 'GET', path: '/v1/threads', query, ...callSettings(options) });
  }

  get(id: string, options?: CallOptions): Promise<Thread> {
    return this.http.json({ method: 'GET', path: this.path(id), ...callSettings(options) });
  }

  /** One page of the transcript, oldest first. */
  messages(
    id: string,
    query: { limit?: number; after?: string } = {},
    options?: CallOptions,
  ): Promise<Page<ThreadMessage>> {
    return this.http.json({ method: 'GET', path: `${this.path(id)}/messages`, query, ...callSettings(options) });
  }

  /** The whole transcript, page by page. */
  async allMessages(id: string, options?: CallOptions): Promise<ThreadMessage[]> {
    const all: ThreadMessage[] = [];
    for (let after: string | undefined; ;) {
      const page = await this.messages(id, { limit: PAGE_LIMIT, ...(after !== undefined ? { after } : {}) }, options);
      all.push(...page.data);
      if (!page.has_more || page.next_cursor === null) return all;
      after = page.next_cursor;
    }
  }

  /**
   * `POST /v1/threads/{id}/messages` as is: new input, or tool results. A 202 means the input was
   * queued, or the results were held while other calls are still pending.
   */
  send(
    id: string,
    body: PostMessageBody,
    options?: CallOptions,
  ): Promise<MessageResponse | QueuedMessage | HeldToolResults> {
    return this.http.json({ method: 'POST', path: `${this.path(id)}/messages`, body, ...callSettings(options) });
  }

  /**
   * Sends results in one message: for every pending client call, the turn resumes and the answer
   * comes back; for only some of them, a 202 `HeldToolResults` names the calls still pending.
   */
  submitResults(
    id: string,
    results: ToolResultInput[],
    options?: CallOptions,
  ): Promise<MessageResponse | HeldToolResults> {
    return this.http.json({
      method: 'POST',
      path: `${this.path(id)}/messages`,
      body: { role: 'user', content: results },
      ...callSettings(options),
    });
  }

  /** Cancels the running or paused turn; pending calls get synthetic error results. */
  cancel(id: string, options?: CallOptions): Promise<CancelledThread> {
    return this.http.json({ method: 'POST', path: `${this.path(id)}/cancel`, body: {}, ...callSettings(options) });
  }

  /**
   * Deletes the thread and everything it holds; a paused turn's pending calls are cancelled first.
   * A turn still running is refused (`409 conversation_running`, naming the turn): cancel it first.
   */
  delete(id: string, options?: CallOptions): Promise<DeletedThread> {
    return this.http.json({ method: 'DELETE', path: this.path(id), ...callSettings(options) });
  }

  /** The whole thread as `baton.conversation-export/v1`: messages, calls with their results and decisions, turns. */
  export(id: string, options?: CallOptions): Promise<ConversationExport> {
    return this.http.json({ method: 'GET', path: `${this.path(id)}/export`, ...callSettings(options) });
  }

  /**
   * Sends `input` and runs the tool loop until the agent answers in text. On a thread that still
   * waits on calls (e.g. after a crash), those are answered first, then `input` is sent.
   */
  run(id: string, input: string, options: ThreadRunOptions = {}): Promise<RunResult<ThreadReply>> {
    return this.loop(id, input, options, false, options.onEvent ?? (() => {}), options.signal);
  }

  /** Answers the calls a thread already waits on (after a restart, say) and runs on to the answer. */
  resume(id: string, options: ThreadRunOptions = {}): Promise<RunResult<ThreadReply>> {
    return this.loop(id, null, options, false, options.onEvent ?? (() => {}), options.signal);
  }

  /**
   * `run`, as events for `for await`: `text.delta` as the model writes, `tool_call`, `tool_result`,
   * `approval`, `message` per reply, and `done` with the result. Leaving the loop early aborts the run.
   */
  stream(id: string, input: string, options: ThreadRunOptions = {}): AsyncIterable<RunEvent<ThreadReply>> {
    return iterateEvents<RunEvent<ThreadReply>>((emit, signal) => {
      const onEvent = options.onEvent;
      return this.loop(
        id,
        input,
        options,
        true,
        (event) => {
          onEvent?.(event);
          emit(event);
        },
        signal,
      );
    }, options.signal);
  }

  private loop(
    id: string,
    input: string | null,
    options: ThreadRunOptions,
    streaming: boolean,
    emit: (event: RunEvent<ThreadReply>) => void,
    signal: AbortSignal | undefined,
  ) {
    const registry = new ToolRegistry(options.tools, options.fallback);
    const face = new ThreadsFace(id, input, {
      http: this.http,
      threads: this,
      toolCalls: this.toolCalls,
      registry,
      declareTools: options.declareTools ?? true,
      streaming,
      pollIntervalMs: options.pollIntervalMs ?? this.defaults.pollIntervalMs,
      onApproval: options.onApproval,
      cancelOnAbort: options.cancelOnAbort ?? false,
      message: options.message,
      emit,
    });
    return runLoop(face, {
      registry,
      handlerTimeoutMs: options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
      maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS,
      signal,
      emit,
    });
  }

  private path(id: string): string {
    return `/v1/threads/${encodeURIComponent(id)}`;
  }
}
