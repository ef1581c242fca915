import type { ItemRecord, LedgerKind, LedgerState } from './records.ts';

/** What lists of conversations, items and ledger entries can be narrowed by. */

export interface ConversationFilter {
  appId: string;
  agentName?: string;
}

export interface LedgerFilter {
  appId: string;
  state?: LedgerState;
  agentName?: string;
  conversationId?: string;
  toolName?: string;
  /** Only entries created strictly before this instant (ISO 8601): "older than", for an inbox. */
  createdBefore?: string;
}

/** An item as the model prompt needs it. */
export type WindowItem = Pick<ItemRecord, 'seq' | 'groupId' | 'payload'>;

/**
 * Pending ledger entries of every app, counted together (`LedgerRepo.summarisePending`): one group
 * per agent, kind, deadline passed or not, and age bucket.
 */
export interface PendingCallGroup {
  agentName: string;
  kind: LedgerKind;
  /** The deadline passed and the sweeper has not applied it yet. */
  overdue: boolean;
  /**
   * Index of the first of the requested age bounds the entries' ages are within (ages in seconds,
   * `age <= bounds[i]`), or `bounds.length` when older than the last bound.
   */
  ageBucket: number;
  count: number;
  /** The entries' ages added up, in seconds. */
  ageSecondsSum: number;
}
