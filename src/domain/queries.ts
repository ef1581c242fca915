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

/** What a tool worker asks for (`POST /v1/tool-calls/claim`), as the store takes it. */
export interface WorkerClaim {
  appId: string;
  tools: readonly string[];
  /** Only calls made by these agents, when given. */
  agents?: readonly string[];
  limit: number;
  /** Leases that ended before this instant no longer hold their call. */
  now: string;
  expiresAt: string;
  holder: string;
  keyId: string;
  /** A fresh, unguessable token per claimed call. */
  newToken: () => string;
}

/**
 * How a resolution treats a worker's lease: `lease` resolves only while that token holds a live
 * lease (a worker's result: fencing); `unleased` only while no live lease holds the call (anyone
 * else's result). Baton's own resolutions (deadlines, cancels) pass neither and always apply.
 */
export type LeaseGuard = { lease: string; now: string } | { unleased: string };

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
