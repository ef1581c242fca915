import { BatonError } from '../errors.ts';
import type { Transport } from '../http/transport.ts';
import type { ToolCalls } from '../resources/tool-calls.ts';
import type { MessageResponse, PostMessageBody, QueuedMessage, ToolResultInput } from '../wire/threads.ts';
import { decideApprovals } from './approval-decisions.ts';
import type { FaceAdapter, Step } from './face-adapter.ts';
import type { HandlerOutcome } from './run-handlers.ts';
import type { ApprovalHandler, RunEvent } from './run-types.ts';
import { postMessageStreaming } from './thread-stream.ts';
import { followThread, stepFromMessageResponse, type ThreadReader, type ThreadReply } from './thread-steps.ts';
import type { ToolRegistry } from './tool-registry.ts';

/** Message settings a Threads run may add to the input message (see `PostMessageBody`). */
export type ThreadMessageSettings = Pick<
  PostMessageBody,
  'tool_choice' | 'parallel_tool_calls' | 'tool_timeout_seconds' | 'max_steps'
>;

export interface ThreadsFaceSettings {
  http: Transport;
  threads: ThreadReader & { cancel(id: string): Promise<unknown> };
  toolCalls: ToolCalls;
  registry: ToolRegistry;
  declareTools: boolean;
  streaming: boolean;
  pollIntervalMs: number;
  onApproval: ApprovalHandler | undefined;
  cancelOnAbort: boolean;
  message: ThreadMessageSettings | undefined;
  emit: (event: RunEvent<ThreadReply>) => void;
}

/** 409s that mean "the thread is not free for new input yet": answer or wait first, then send it. */
const NOT_FREE = new Set(['tool_calls_pending', 'thread_busy', 'approvals_pending']);
/** 409s on a results message that mean someone else settled the calls (a deadline, another client). */
const ALREADY_SETTLED = new Set(['tool_call_already_resolved', 'thread_not_pending']);

/**
 * The Threads face (`POST /v1/threads/{id}/messages`). New input on a thread that still waits on
 * calls (409 `tool_calls_pending`) is held back: the pending calls are answered first (a resume),
 * then the input is sent. Results go in one message; with approvals open, the server records them
 * and resumes once the approvals are decided.
 */
export class ThreadsFace implements FaceAdapter<ThreadReply> {
  readonly face = 'threads' as const;
  readonly resultsBeforeApprovals = true;

  constructor(
    private readonly id: string,
    /** The text to send; null for a resume (answer what is pending, send nothing new). */
    private held: string | null,
    private readonly settings: ThreadsFaceSettings,
  ) {}

  threadId(): string {
    return this.id;
  }

  async start(signal: AbortSignal | undefined): Promise<Step<ThreadReply>> {
    const text = this.held;
    this.held = null;
    if (text === null) return this.follow(signal, false);
    try {
      return await this.post(this.inputBody(text), undefined, signal);
    } catch (error) {
      if (!(error instanceof BatonError && error.status === 409 && error.code !== null && NOT_FREE.has(error.code)))
        throw error;
      this.held = text;
      return this.follow(signal, false);
    }
  }

  async afterIdle(signal: AbortSignal | undefined): Promise<Step<ThreadReply> | null> {
    return this.held === null ? null : this.start(signal);
  }

  async submit(
    _step: Step<ThreadReply>,
    outcomes: HandlerOutcome[],
    idempotencyKey: string,
    signal: AbortSignal | undefined,
  ): Promise<Step<ThreadReply>> {
    const content: ToolResultInput[] = outcomes.map((outcome) => ({
      type: 'tool_result',
      tool_call_id: outcome.call.id,
      ...(outcome.content !== undefined ? { content: outcome.content } : {}),
      ...(outcome.isError ? { is_error: true } : {}),
    }));
    try {
      return await this.post({ role: 'user', content }, idempotencyKey, signal);
    } catch (error) {
      if (error instanceof BatonError && error.status === 409 && error.code !== null && ALREADY_SETTLED.has(error.code))
        return this.follow(signal, false);
      throw error;
    }
  }

  async settleApprovals(step: Step<ThreadReply>, signal: AbortSignal | undefined): Promise<Step<ThreadReply>> {
    if (this.settings.onApproval) {
      const resumed = await decideApprovals(this.settings.toolCalls, step.approvals, this.settings.onApproval, {
        threadId: this.id,
        signal,
      });
      const reply = resumed.find((answer) => answer.response !== null)?.response;
      if (reply) return stepFromMessageResponse(reply);
    }
    return this.follow(signal, true);
  }

  async onAbort(): Promise<void> {
    if (!this.settings.cancelOnAbort) return;
    await this.settings.threads.cancel(this.id).catch((error: unknown) => {
      // Nothing to cancel (the turn had ended) is fine; anything else is worth surfacing.
      if (!(error instanceof BatonError && error.code === 'thread_not_active')) throw error;
    });
  }

  private inputBody(text: string): PostMessageBody {
    const declarations = this.settings.declareTools ? this.settings.registry.declarations() : [];
    return {
      role: 'user',
      content: text,
      ...this.settings.message,
      ...(declarations.length > 0
        ? {
            tools: declarations.map((tool) => ({
              type: 'client' as const,
              name: tool.name,
              ...(tool.description !== undefined ? { description: tool.description } : {}),
              parameters: { ...tool.parameters },
            })),
          }
        : {}),
    };
  }

  private follow(signal: AbortSignal | undefined, waitForApprovals: boolean): Promise<Step<ThreadReply>> {
    return followThread(this.settings.threads, this.id, {
      pollIntervalMs: this.settings.pollIntervalMs,
      signal,
      waitForApprovals,
    });
  }

  private async post(
    body: PostMessageBody,
    idempotencyKey: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Step<ThreadReply>> {
    const path = `/v1/threads/${encodeURIComponent(this.id)}/messages`;
    const reply = this.settings.streaming
      ? await postMessageStreaming(this.settings.http, this.id, body, idempotencyKey, signal, (delta, messageId) =>
          this.settings.emit({ type: 'text.delta', delta, messageId }),
        )
      : await this.settings.http.json<MessageResponse | QueuedMessage>({
          method: 'POST',
          path,
          body,
          idempotencyKey,
          signal,
        });
    // Queued input (agent input_policy `queue`) runs once the thread is free: follow it there.
    if (!('choices' in reply)) return this.follow(signal, false);
    return stepFromMessageResponse(reply);
  }
}
