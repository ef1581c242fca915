import type { EngineEvent, RenderItem, ServerCallIndex } from '../../engine/index.ts';
import type { ItemRecord, JsonObject, LedgerEntryRecord } from '../../domain/records.ts';
import { itemView, outputTextPart, type ItemViewOptions } from './item-views.ts';
import { reasoningItemId } from './item-references.ts';
import { isHiddenItem, isServerExecutor, type ServerExecutor } from '../../engine/index.ts';
import { TextPieces } from './text-pieces.ts';

/** Where translated events go: an SSE writer or a WebSocket. */
export type ResponseEventSink = (event: JsonObject) => void;

/** A reasoning item streaming its summary (Responses' name for the reasoning a model shows). */
interface OpenReasoning {
  id: string;
  outputIndex: number;
  text: string;
  /** `reasoning_summary_part.added` went out: the first visible text arrived. */
  partAdded: boolean;
  /** The summary's deltas, cut as a replay cuts them (see text-pieces.ts). */
  pieces: TextPieces;
}

interface OpenMessage {
  id: string;
  outputIndex: number;
  text: string;
  /** The stored item, once the step committed; the message closes on the next event. */
  committed: boolean;
  /** The text's deltas, cut as a replay cuts them (see text-pieces.ts). */
  pieces: TextPieces;
}

/** Consecutive items of one model step (they share a group), or of one batch of outputs. */
function stepsOf(items: readonly RenderItem[]): RenderItem[][] {
  const steps: RenderItem[][] = [];
  for (const item of items) {
    const last = steps[steps.length - 1];
    if (last?.[0]?.groupId === item.groupId) last.push(item);
    else steps.push([item]);
  }
  return steps;
}

/**
 * Translates the engine's neutral events into the Open Responses event sequence:
 * `response.created`, `response.in_progress`, per item `output_item.added` → parts and deltas →
 * `output_item.done`, then one terminal event. `sequence_number` starts at 0 and grows by one.
 *
 * Text streams live. A function call is announced only once its step is committed, because only
 * then is it known to be valid: an invalid call is answered to the model and never shown, so
 * streaming it early would show the client a call it must not run. The same holds for calls
 * Baton executes itself: the engine's `call.started`/`call.arguments.delta` come before anyone
 * knows the executor, so they are not translated, and a server call never looks like a client
 * call, not even mid-stream. It is announced at commit as a `baton:tool_call` item, without
 * `function_call_arguments.*` events, and its output as a `baton:tool_result` item.
 *
 * Text deltas are cut by the text, not by the provider's chunks (text-pieces.ts), and `replay`
 * feeds stored items through the same code: a response streamed again later
 * (`GET /v1/responses/{id}?stream=true`) gets the events, and sequence numbers, it got live.
 */
export class ResponseEventTranslator {
  private sequence = 0;
  private nextOutputIndex = 0;
  private message: OpenMessage | null = null;
  private started = false;
  /** Server-executed calls seen on this stream, so their outputs render as `baton:tool_result`. */
  private readonly serverCalls = new Map<string, ServerExecutor>();
  /**
   * Items held from the first server call of a step until the step's events end. Whether a server
   * call waits for an approval is known only from `turn.paused`, which follows the step's items;
   * holding them keeps every item's `output_item.done` equal to what a GET shows later.
   */
  private held: ItemRecord[] = [];
  /** Ids of the items announced so far, to add the ones only the final response knows. */
  private readonly announced = new Set<string>();
  /** Reasoning items announced while their step streams, by stored item id, until the step commits. */
  private readonly reasoning = new Map<string, OpenReasoning>();

  constructor(
    private readonly sink: ResponseEventSink,
    private readonly snapshot: () => JsonObject,
    private readonly options: ItemViewOptions = {},
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
    if (event.type !== 'item.added') this.release(event.type === 'turn.paused' ? event.pending : []);
    switch (event.type) {
      case 'text.delta':
        this.onText(event.groupId, event.delta);
        break;
      case 'reasoning.delta':
        this.onReasoning(event.groupId, event.itemId, event.delta);
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
      this.message = { id: groupId, outputIndex, text: '', committed: false, pieces: new TextPieces() };
      this.announced.add(groupId);
      this.emit('response.output_item.added', {
        output_index: outputIndex,
        item: { type: 'message', id: groupId, status: 'in_progress', role: 'assistant', content: [] },
      });
      this.emit('response.content_part.added', {
        item_id: groupId,
        output_index: outputIndex,
        content_index: 0,
        part: outputTextPart(''),
      });
    }
    this.message.text += delta;
    this.emitTextDeltas(this.message, this.message.pieces.push(delta));
  }

  private emitTextDeltas(message: OpenMessage, pieces: readonly string[]): void {
    for (const piece of pieces)
      this.emit('response.output_text.delta', {
        item_id: message.id,
        output_index: message.outputIndex,
        content_index: 0,
        delta: piece,
        logprobs: [],
      });
  }

  /**
   * Reasoning streams as it comes, before the text it leads to, so the stream's output indexes
   * follow the order a later GET shows. The item closes when its step commits (`onItem`).
   */
  private onReasoning(groupId: string, itemId: string, delta: string): void {
    let open = this.reasoning.get(itemId);
    if (!open) {
      const id = reasoningItemId(groupId, itemId);
      open = { id, outputIndex: this.nextOutputIndex++, text: '', partAdded: false, pieces: new TextPieces() };
      this.reasoning.set(itemId, open);
      this.announced.add(id);
      this.emit('response.output_item.added', {
        output_index: open.outputIndex,
        item: { type: 'reasoning', id, summary: [], status: 'in_progress' },
      });
    }
    if (delta === '') return;
    open.text += delta;
    this.emitReasoningDeltas(open, open.pieces.push(delta));
  }

  private emitReasoningDeltas(open: OpenReasoning, pieces: readonly string[]): void {
    const base = { item_id: open.id, output_index: open.outputIndex, summary_index: 0 };
    for (const piece of pieces) {
      if (!open.partAdded) {
        open.partAdded = true;
        this.emit('response.reasoning_summary_part.added', { ...base, part: { type: 'summary_text', text: '' } });
      }
      this.emit('response.reasoning_summary_text.delta', { ...base, delta: piece });
    }
  }

  /** The committed reasoning item: its summary's `done` events, then `output_item.done`. */
  private closeReasoning(item: RenderItem): void {
    const done = itemView(item, 'completed', undefined, this.options);
    const open = item.id === undefined ? undefined : this.reasoning.get(item.id);
    if (!open || item.id === undefined) {
      this.showWhole(done);
      return;
    }
    this.reasoning.delete(item.id);
    this.emitReasoningDeltas(open, open.pieces.flush());
    const base = { item_id: open.id, output_index: open.outputIndex, summary_index: 0 };
    if (open.partAdded) {
      this.emit('response.reasoning_summary_text.done', { ...base, text: open.text });
      this.emit('response.reasoning_summary_part.done', { ...base, part: { type: 'summary_text', text: open.text } });
    }
    this.emit('response.output_item.done', { output_index: open.outputIndex, item: done });
  }

  private onItem(item: ItemRecord): void {
    if (isHiddenItem(item)) return;
    const payload = item.payload;
    if (payload.type === 'function_call' && isServerExecutor(payload.executor))
      this.serverCalls.set(payload.callId, payload.executor);
    if (this.held.length > 0 || (payload.type === 'function_call' && isServerExecutor(payload.executor))) {
      this.held.push(item);
      return;
    }
    this.show(item, new Map());
  }

  /** Shows the held items, in order; `pending` are the paused turn's blocking calls (approvals among them). */
  private release(pending: readonly LedgerEntryRecord[]): void {
    if (this.held.length === 0) return;
    const items = this.held;
    this.held = [];
    const approvals = new Map(pending.filter((entry) => entry.kind === 'approval').map((entry) => [entry.id, entry]));
    for (const item of items) this.show(item, approvals);
  }

  /**
   * Replays stored output items as their live stream showed them: per step, the reasoning and
   * text stream first, in the order the model produced them, then the step's items as committed.
   * `calls` are the server calls among them with their ledger rows, as a GET renders them. The
   * caller ends the replay with `finish`, or stops at a step of a response still running.
   */
  replay(items: readonly RenderItem[], calls: ServerCallIndex): void {
    this.start();
    for (const [callId, executor] of calls.executors) this.serverCalls.set(callId, executor);
    for (const step of stepsOf(items)) {
      for (const item of step) {
        const payload = item.payload;
        if (payload.type === 'reasoning' && payload.text !== '' && item.id !== undefined)
          this.onReasoning(item.groupId, item.id, payload.text);
        else if (payload.type === 'message' && payload.role === 'assistant')
          this.onText(item.groupId, payload.content.map((part) => (part.type === 'text' ? part.text : '')).join(''));
      }
      for (const item of step) if (!isHiddenItem(item)) this.show(item, calls.ledger);
    }
  }

  private show(item: RenderItem, ledger: ReadonlyMap<string, LedgerEntryRecord>): void {
    const payload = item.payload;
    if (payload.type === 'reasoning') {
      this.closeReasoning(item);
      return;
    }
    if (payload.type === 'message' && payload.role === 'assistant') {
      const text = payload.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      // A provider may deliver text without deltas; stream it as one so the sequence stays whole.
      if (!this.message || this.message.id !== item.groupId) this.onText(item.groupId, text);
      if (this.message) this.message.committed = true;
      return;
    }
    const done = itemView(item, 'completed', { executors: this.serverCalls, ledger });
    if (done['type'] === 'function_call' && payload.type === 'function_call') {
      const outputIndex = this.announce(done, { ...done, status: 'in_progress', arguments: '' });
      const id = done['id'] as string;
      this.emit('response.function_call_arguments.delta', {
        item_id: id,
        output_index: outputIndex,
        delta: payload.arguments,
      });
      // `call_id` is not in the spec's event, but the seed's stream loop reads it there; extra keys are allowed.
      this.emit('response.function_call_arguments.done', {
        item_id: id,
        output_index: outputIndex,
        name: payload.name,
        call_id: payload.callId,
        arguments: payload.arguments,
      });
      this.emit('response.output_item.done', { output_index: outputIndex, item: done });
    } else {
      this.showWhole(done);
    }
  }

  /** `output_item.added` (closing an open message first); returns the item's output index. */
  private announce(done: JsonObject, added: JsonObject): number {
    this.closeMessage('completed');
    const outputIndex = this.nextOutputIndex++;
    this.announced.add(done['id'] as string);
    this.emit('response.output_item.added', { output_index: outputIndex, item: added });
    return outputIndex;
  }

  /** An item with nothing to stream: added, then done. */
  private showWhole(done: JsonObject): void {
    const outputIndex = this.announce(done, { ...done, status: 'in_progress' });
    this.emit('response.output_item.done', { output_index: outputIndex, item: done });
  }

  private closeMessage(status: 'completed' | 'incomplete'): void {
    const message = this.message;
    if (!message) return;
    this.message = null;
    this.emitTextDeltas(message, message.pieces.flush());
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
    this.release([]);
    const status = response['status'];
    this.closeMessage(status === 'incomplete' ? 'incomplete' : 'completed');
    // Results of server calls in a step that paused for the client are written only at resume;
    // the response shows them from the ledger (after the step's items), so the stream does too.
    const output = Array.isArray(response['output']) ? (response['output'] as JsonObject[]) : [];
    for (const item of output)
      if (item['type'] === 'baton:tool_result' && !this.announced.has(item['id'] as string)) this.showWhole(item);
    if (status === 'failed') {
      const error = (response['error'] ?? {}) as JsonObject;
      this.emit('error', {
        error: {
          type: 'server_error',
          code: (error['code'] as string) ?? 'server_error',
          message: (error['message'] as string) ?? 'The response failed.',
          param: null,
        },
      });
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
    this.release([]);
    this.closeMessage('incomplete');
    this.emit('error', { error: error as unknown as JsonObject });
    this.emit('response.failed', {
      response: { ...this.snapshot(), status: 'failed', error: { code: error.code, message: error.message } },
    });
  }
}
