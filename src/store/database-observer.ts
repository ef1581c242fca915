/**
 * What the store tells about its database work, for metrics: statement times and waits for a
 * connection. Given to `openStore` only when something listens; otherwise the store is built
 * without the timing wrappers and pays nothing.
 */
export interface DatabaseObserver {
  /** A statement ran (BEGIN, COMMIT and ROLLBACK included), for `seconds`, and failed or not. */
  statementRan(seconds: number, failed: boolean): void;
  /** A connection was asked for: from the pool, or SQLite's one connection, which transactions hold in turn. */
  connectionRequested(): void;
  /** The connection asked for came after `seconds` (or the request failed: `acquired` false). */
  connectionHandedOver(seconds: number, acquired: boolean): void;
}
