/** Data lifecycle records: what a deletion removed, and the audit trail of deletions, exports and purges. */

/** Rows removed, by table (only tables that lost rows are named). */
export type RowCounts = Record<string, number>;

export type AuditAction =
  | 'conversation.deleted'
  | 'conversation.exported'
  | 'conversations.exported'
  | 'retention.applied'
  | 'app.deletion_requested'
  | 'app.purged';

export interface AuditEventRecord {
  id: string;
  appId: string;
  /** The key id that acted; `baton:retention` for the retention job. */
  actor: string | null;
  action: AuditAction;
  /** What it acted on: a conversation id, an app id; null for app-wide runs. */
  target: string | null;
  counts: RowCounts;
  details: Record<string, string | number | boolean | null>;
  createdAt: string;
}

/** The actor the retention job records. */
export const RETENTION_ACTOR = 'baton:retention';

/** Adds `more` into `into`, table by table. */
export function addCounts(into: RowCounts, more: RowCounts): RowCounts {
  for (const [table, count] of Object.entries(more)) into[table] = (into[table] ?? 0) + count;
  return into;
}
