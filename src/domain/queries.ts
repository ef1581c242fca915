import type { ItemRecord, LedgerState } from './records.ts';

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
