import type { JsonObject } from '../../domain/records.ts';
import type { RenderItem, ResponseState } from '../../engine/index.ts';
import type { ItemViewOptions } from './item-views.ts';
import { ResponseEventTranslator } from './response-events.ts';
import { baseResponseView } from './response-views.ts';

/** A response's events as a streamed create would have sent them, and whether they are all there. */
export interface ReplayedEvents {
  events: JsonObject[];
  /** The response finished: the last event is its terminal one. */
  finished: boolean;
}

/**
 * While a turn runs, the items whose events can no longer change: every stored item up to the
 * first result read from the ledger (a server call's result written later, at its own place).
 * Items are appended, never rewritten, so these events are a prefix of the finished response's.
 */
function settledOutput(output: readonly RenderItem[]): readonly RenderItem[] {
  const firstFromLedger = output.findIndex((item) => item.id === undefined);
  return firstFromLedger === -1 ? output : output.slice(0, firstFromLedger);
}

/**
 * The event sequence of a response as it stands, numbered from 0: `response.created`,
 * `response.in_progress`, its items, and (once it finished) its terminal event carrying `view`.
 * It is built by the live stream's own translator from the stored items, so it is the sequence a
 * streamed create sent for them; a running response gets the events of what it committed so far.
 */
export function replayEvents(state: ResponseState, view: JsonObject, options: ItemViewOptions): ReplayedEvents {
  const events: JsonObject[] = [];
  const translator = new ResponseEventTranslator(
    (event) => events.push(event),
    () => baseResponseView(state.record),
    options,
  );
  const finished = view['status'] !== 'in_progress' && view['status'] !== 'queued';
  translator.replay(finished ? state.output : settledOutput(state.output), state.serverCalls);
  if (finished) translator.finish(view);
  return { events, finished };
}
