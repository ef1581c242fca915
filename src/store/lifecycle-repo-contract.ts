import type { AuditEventRecord, RowCounts } from '../domain/lifecycle.ts';
import type { Page, PageRequest } from '../domain/page.ts';
import type { ResponseRecord, TurnRecord } from '../domain/records.ts';

/**
 * The store's side of the data lifecycle (issue 21): deleting conversations, the audit trail,
 * retention's reads and removals, and the tombstones and batches of an app's purge.
 */

/** Which conversations or calls of an app a retention policy covers: some agents, or all but some. */
export interface RetentionScope {
  appId: string;
  /** Only these agents' (absent: every agent). */
  agentNames?: readonly string[];
  /** Not these agents' (they have a policy of their own). */
  exceptAgentNames?: readonly string[];
}

/** Data lifecycle (issue 21): whole-conversation deletes, the audit trail, retention's reads and removals. */
export interface LifecycleRepo {
  /**
   * Deletes a conversation and every row of it (items, turns, ledger entries, server call claims,
   * responses, sessions, queued inputs, idempotency records tied to it) in one transaction.
   * Returns the rows removed by table, or undefined when it does not exist in the app.
   */
  purgeConversation(appId: string, id: string): Promise<RowCounts | undefined>;
  /** Every turn of a conversation, oldest first (an export reads them). */
  listTurns(conversationId: string): Promise<TurnRecord[]>;
  /** Every response of a conversation, hidden ones included, in input order (an export reads them). */
  listResponses(conversationId: string): Promise<ResponseRecord[]>;
  insertAudit(event: AuditEventRecord): Promise<void>;
  /** An app's audit events, newest first. */
  listAudit(appId: string, page: PageRequest): Promise<Page<AuditEventRecord>>;
  /** Every live app's id (the retention job visits each; deleted ones are being purged). */
  listAppIds(): Promise<string[]>;
  /** Conversations idle since before `before`, with no running turn and no pending call, oldest first. */
  listIdleConversations(scope: RetentionScope, before: string, limit: number): Promise<string[]>;
  /**
   * Removes the arguments and result of at most `limit` resolved calls last changed before `before`
   * (and the same data in their transcript items), keeping each row's state and timestamps.
   */
  removeToolData(
    scope: RetentionScope,
    before: string,
    limit: number,
    at: string,
  ): Promise<{ calls: number; items: number }>;
}

/** Who deletes an app, when, and the audit event written in the tombstone's transaction. */
export interface AppDeletion {
  by: string | null;
  at: string;
  audit: AuditEventRecord | null;
}

/** What an app's purge removed so far, kept on its tombstone (written in each batch's transaction). */
export interface AppPurgeProgress {
  /** When its first batch ran, and its latest. */
  startedAt: string;
  updatedAt: string;
  /** Transactions that removed rows. */
  batches: number;
  /** Rows removed, by table. */
  counts: RowCounts;
}

/** A deleted app whose rows are being purged. */
export interface AppTombstone {
  id: string;
  /** Its name before deletion. */
  name: string;
  project: string;
  location: string;
  deletedAt: string;
  /** The key id that deleted it. */
  deletedBy: string | null;
  /** Null until the first batch. */
  progress: AppPurgeProgress | null;
}

/** One batch of a purge: the table it took rows from, how many, and the progress after it. */
export interface AppPurgeBatch {
  table: string;
  removed: number;
  progress: AppPurgeProgress;
}

export type AppPurgeFinish =
  | { status: 'purged'; tombstone: AppTombstone; event: AuditEventRecord | null }
  | { status: 'rows_left'; table: string }
  | { status: 'gone' };
