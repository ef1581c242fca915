import type { LedgerEntryRecord, TurnRecord } from '../domain/records.ts';

/**
 * The ids an operator searches the logs by, named as the wire formats name them, so one search
 * finds a turn's lines whichever face started it and whatever logged them.
 */
export interface EngineLogIds {
  app_id?: string;
  conversation_id?: string;
  turn_id?: string;
  call_id?: string;
}

export function turnLogIds(turn: Pick<TurnRecord, 'id' | 'appId' | 'conversationId'>): EngineLogIds {
  return { app_id: turn.appId, conversation_id: turn.conversationId, turn_id: turn.id };
}

export function callLogIds(entry: Pick<LedgerEntryRecord, 'id' | 'appId' | 'conversationId' | 'turnId'>): EngineLogIds {
  return { app_id: entry.appId, conversation_id: entry.conversationId, turn_id: entry.turnId, call_id: entry.id };
}
