import type { JsonObject } from '../../domain/records.ts';
import type { EngineEventListener } from '../../engine/index.ts';
import type { ChatReply, CompletionBase } from './chat-views.ts';

/**
 * The model's text of one request as it streams. A run may take several steps (text, a server
 * call, more text); each step's text is joined to the one before by a blank line, the same way
 * streamed and whole, so a streamed reply adds up to exactly the one a non-streamed request gets.
 */
export class ReplyText {
  private text = '';
  private group: string | null = null;

  /** Takes a delta of step `groupId`; returns what to stream (the separator first, on a new step). */
  add(groupId: string, delta: string): string {
    if (delta === '') return '';
    const piece = this.text !== '' && this.group !== groupId ? `\n\n${delta}` : delta;
    this.group = groupId;
    this.text += piece;
    return piece;
  }

  get value(): string {
    return this.text;
  }

  /** A listener gathering the text of a run (the non-streamed reply). */
  readonly listener: EngineEventListener = (event) => {
    if (event.type === 'text.delta') this.add(event.groupId, event.delta);
  };
}

/**
 * OpenAI's streamed reply: `chat.completion.chunk`s with the role first, content deltas as the
 * model writes them, then the tool calls (each as its id and name, then its arguments), a last
 * chunk with the finish reason and, with `stream_options.include_usage`, one with the usage and
 * no choices. `data: [DONE]` follows (written by the reply, see `StreamedReply`).
 *
 * Tool calls go out once the run paused on them, never while the model writes them: only then is
 * it known that a call is valid and that it is the client's to run (a server call is Baton's).
 */
export class ChatChunks {
  private started = false;
  readonly text = new ReplyText();

  constructor(
    private readonly send: (chunk: JsonObject) => void,
    private readonly base: CompletionBase,
    private readonly includeUsage: boolean,
  ) {}

  readonly listener: EngineEventListener = (event) => {
    if (event.type === 'turn.started') this.begin();
    else if (event.type === 'text.delta') {
      const piece = this.text.add(event.groupId, event.delta);
      if (piece !== '') {
        this.begin();
        this.chunk({ content: piece });
      }
    }
  };

  get hasStarted(): boolean {
    return this.started;
  }

  /** The rest of the reply: what the run's outcome adds to the streamed text, the calls, the end. */
  finish(reply: ChatReply): void {
    this.begin();
    const rest = (reply.content ?? '').slice(this.text.value.length);
    if (rest !== '') this.chunk({ content: rest });
    reply.toolCalls.forEach((call, index) => {
      this.chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      });
      this.chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
    });
    this.chunk({}, reply.finishReason);
    if (this.includeUsage) this.send({ ...this.envelope(), choices: [], usage: reply.usage });
  }

  /** The request failed once streaming: OpenAI's error body, as its clients read it from a stream. */
  fail(body: JsonObject): void {
    this.send(body);
  }

  private begin(): void {
    if (this.started) return;
    this.started = true;
    this.chunk({ role: 'assistant', content: '', refusal: null });
  }

  private chunk(delta: JsonObject, finishReason: string | null = null): void {
    this.send({
      ...this.envelope(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(this.includeUsage ? { usage: null } : {}),
    });
  }

  private envelope(): JsonObject {
    return {
      id: this.base.id,
      object: 'chat.completion.chunk',
      created: this.base.created,
      model: this.base.model,
      service_tier: 'default',
      system_fingerprint: null,
    };
  }
}
