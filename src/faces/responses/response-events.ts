import type { EngineEvent } from '../../engine/events.ts';
import type { ItemRecord, JsonObject } from '../../store/records.ts';
import { isHiddenItem, itemView, outputTextPart } from './response-views.ts';

/** Where translated events go: an SSE writer or a WebSocket. */
export type ResponseEventSink = (event: JsonObject) => void;

interface OpenMessage {
  id: string;
  outputIndex: number;
  text: string;
  /** The stored item, once the step committed; the message closes on the next event. */
  committed: boolean;
}

/**
 * Translates the engine's neutral events into the Open Responses event sequence:
 * `response.created`, `response.in_progress`, per item `output_item.added` → parts and deltas →
 * `output_item.done`, then one terminal event. `sequence_number` starts at 0 and grows by one.
 *
 * Text streams live. A function call is announced only once its step is committed, because only
 * then is it known to be valid: an invalid call is answered to the model and never shown, so
 * streaming it early would show the client a call it must not run.
 */
export class ResponseEventTranslator {
  private sequence = 0;
  private nextOutputIndex = 0;
  private message: OpenMessage | null = null;
  private started = false;

  constructor(
    private readonly sink: ResponseEventSink,
    private readonly snapshot: () => JsonObject,
  ) {}

  get hasStarted(): boolean {
    return this.started;
  }

  private emit(type: string, fields: JsonObject): void {
    this.sink({ type, sequence_number: this.sequence++, ...fields });
  }

  /** `response.created` then `response.in_progress`, with the in-progress snapshot. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const response = this.snapshot();
    this.emit('response.created', { response });
    this.emit('response.in_progress', { response });
  }

  readonly listener = (event: EngineEvent): void => {
    this.start();
    switch (event.type) {
      case 'text.delta':
        this.onText(event.groupId, event.delta);
        break;
      case 'item.added':
        this.onItem(event.item);
        break;
      case 'turn.completed':
        this.closeMessage(event.turn.finishReason === 'length' ? 'incomplete' : 'completed');
        break;
      case 'turn.paused':
      case 'turn.failed':
        this.closeMessage('completed');
        break;
      default:
        break;
    }
  };

  private onText(groupId: string, delta: string): void {
    if (this.message && this.message.id !== groupId) this.closeMessage('completed');
    if (!this.message) {
      const outputIndex = this.nextOutputIndex++;
      this.message = { id: groupId, outputIndex, text: '', committed: false };
      this.emit('response.output_item.added', { output_index: outputIndex, item: { type: 'message', id: groupId, status: 'in_progress', role: 'assistant', content: [] } });
      this.emit('response.content_part.added', { item_id: groupId, output_index: outputIndex, content_index: 0, part: outputTextPart('') });
    }
    this.message.text += delta;
    this.emit('response.output_text.delta', { item_id: groupId, output_index: this.message.outputIndex, content_index: 0, delta, logprobs: [] });
  }

  private onItem(item: ItemRecord): void {
    if (isHiddenItem(item)) return;
    const payload = item.payload;
    if (payload.type === 'message' && payload.role === 'assistant') {
      const text = payload.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      // A provider may deliver text without deltas; stream it as one so the sequence stays whole.
      if (!this.message || this.message.id !== item.groupId) this.onText(item.groupId, text);
      if (this.message) this.message.committed = true;
      return;
    }
    this.closeMessage('completed');
    const outputIndex = this.nextOutputIndex++;
    const done = itemView(item);
    if (payload.type === 'function_call') {
      const id = done['id'] as string;
      this.emit('response.output_item.added', { output_index: outputIndex, item: { ...done, status: 'in_progress', arguments: '' } });
      this.emit('response.function_call_arguments.delta', { item_id: id, output_index: outputIndex, delta: payload.arguments });
      // `call_id` is not in the spec's event, but the seed's stream loop reads it there; extra keys are allowed.
      this.emit('response.function_call_arguments.done', { item_id: id, output_index: outputIndex, name: payload.name, call_id: payload.callId, arguments: payload.arguments });
    } else {
      this.emit('response.output_item.added', { output_index: outputIndex, item: { ...done, status: 'in_progress' } });
    }
    this.emit('response.output_item.done', { output_index: outputIndex, item: done });
  }

  private closeMessage(status: 'completed' | 'incomplete'): void {
    const message = this.message;
    if (!message) return;
    this.message = null;
    const part = outputTextPart(message.text);
    const base = { item_id: message.id, output_index: message.outputIndex, content_index: 0 };
    this.emit('response.output_text.done', { ...base, text: message.text, logprobs: [] });
    this.emit('response.content_part.done', { ...base, part });
    this.emit('response.output_item.done', {
      output_index: message.outputIndex,
      item: { type: 'message', id: message.id, status, role: 'assistant', content: [part] },
    });
  }

  /** The terminal event, carrying the response as stored. A failed response is preceded by `error`. */
  finish(response: JsonObject): void {
    this.start();
    const status = response['status'];
    this.closeMessage(status === 'incomplete' ? 'incomplete' : 'completed');
    if (status === 'failed') {
      const error = (response['error'] ?? {}) as JsonObject;
      this.emit('error', { error: { type: 'server_error', code: (error['code'] as string) ?? 'server_error', message: (error['message'] as string) ?? 'The response failed.', param: null } });
      this.emit('response.failed', { response });
    } else if (status === 'incomplete') {
      this.emit('response.incomplete', { response });
    } else {
      this.emit('response.completed', { response });
    }
  }

  /** A failure after the stream opened: `error`, then `response.failed` with the snapshot. */
  fail(error: { type: string; code: string; message: string; param: string | null }): void {
    this.start();
    this.closeMessage('incomplete');
    this.emit('error', { error: error as unknown as JsonObject });
    this.emit('response.failed', { response: { ...this.snapshot(), status: 'failed', error: { code: error.code, message: error.message } } });
  }
}
