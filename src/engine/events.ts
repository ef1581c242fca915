import type { ItemRecord, LedgerEntryRecord, TurnRecord } from '../domain/records.ts';

/**
 * Neutral events the engine emits while a turn runs. Faces translate them into their own wire
 * events (Threads SSE, Responses SSE, CES stream); nothing here knows about any wire format.
 */
export type EngineEvent =
  | { type: 'turn.started'; turn: TurnRecord }
  | { type: 'text.delta'; groupId: string; delta: string }
  /**
   * The model's visible reasoning as it streams (`delta` is empty when a part starts, and for
   * reasoning the provider keeps hidden). `itemId` is the id the stored reasoning item will have.
   */
  | { type: 'reasoning.delta'; groupId: string; itemId: string; delta: string }
  | { type: 'call.started'; groupId: string; callId: string; name: string }
  | { type: 'call.arguments.delta'; callId: string; delta: string }
  | { type: 'item.added'; item: ItemRecord }
  | { type: 'turn.paused'; turn: TurnRecord; pending: LedgerEntryRecord[] }
  /** Asynchronous client calls were made; the turn goes on without their results. */
  | { type: 'calls.deferred'; turn: TurnRecord; calls: LedgerEntryRecord[] }
  | { type: 'turn.completed'; turn: TurnRecord }
  | { type: 'turn.failed'; turn: TurnRecord };

export type EngineEventListener = (event: EngineEvent) => void;
