import type { JsonObject } from '../../domain/records.ts';
import type { Engine, SubmissionActor } from '../../engine/index.ts';
import { toTranscript } from './chat-messages.ts';
import {
  conversationMetadata,
  refuseUnsupported,
  statedTurnOptions,
  toToolDefinitions,
  toTurnOptions,
} from './chat-request.ts';
import { ChatChunks, ReplyText } from './chat-stream.ts';
import { chatReply, completionBase, completionView } from './chat-views.ts';
import type { ChatCompletionBody } from './chat-wire.ts';

/** Creates (or finds) the implicit agent of a `provider:model` id in an app; returns its name. */
export type ModelAgents = (appId: string, model: string) => Promise<string>;

export interface CompletionRequest {
  appId: string;
  submission: SubmissionActor;
  /** Streaming: chunks go here as the run produces them. */
  streamTo?: (chunk: JsonObject) => void;
}

/**
 * One chat completion: the body is checked and translated here, the engine's `ChatExchanges`
 * decides what the transcript asks (a new conversation, results for a paused run, input after an
 * approval) and runs it, and the outcome is rendered as a `chat.completion`, or streamed.
 */
export class ChatService {
  constructor(
    private readonly engine: Engine,
    private readonly modelAgents: ModelAgents,
  ) {}

  /** The completion; when streaming, `chunks` is told so the caller can end a failed stream in kind. */
  async complete(
    body: ChatCompletionBody,
    request: CompletionRequest,
    onChunks?: (chunks: ChatChunks) => void,
  ): Promise<JsonObject> {
    refuseUnsupported(body);
    const transcript = toTranscript(body.messages);
    const tools = toToolDefinitions(body.tools);
    const base = completionBase(body.model, this.engine.now());
    const chunks = request.streamTo
      ? new ChatChunks(request.streamTo, base, body.stream_options?.include_usage === true)
      : undefined;
    if (chunks) onChunks?.(chunks);
    const text = chunks?.text ?? new ReplyText();
    const outcome = await this.engine.chats.exchange({
      appId: request.appId,
      submission: request.submission,
      model: body.model,
      ensureModelAgent: (model) => this.modelAgents(request.appId, model),
      transcript: { items: transcript.items, params: transcript.params },
      awaitedApprovalIds: transcript.awaitedApprovalIds,
      options: toTurnOptions(body, tools),
      statedOptions: statedTurnOptions(body, tools),
      metadata: conversationMetadata(body),
      listener: chunks?.listener ?? text.listener,
    });
    const reply = chatReply(outcome, text.value);
    chunks?.finish(reply);
    return completionView(base, reply);
  }
}
