/**
 * Small notices between the Baton processes that share a database: "the ledger of app X
 * changed", "this key was revoked". They carry no data, only what to read again, so a lost notice
 * costs freshness, never correctness: every reader also reads the database on its own schedule.
 *
 * On PostgreSQL they travel by LISTEN/NOTIFY and reach every replica within milliseconds; on
 * SQLite (one process, or a few on one file) they reach the processes' own subscribers, and the
 * others poll as before.
 */
export type SignalTopic =
  /** An app's ledger changed (a call made pending or resolved); key: the app id. */
  | 'ledger'
  /** A key stopped authenticating; key: `hash:<sha256>` or `app:<app id>` (all of an app). */
  | 'api-keys'
  /** An agent was created, edited or deleted; key: the app id. */
  | 'agents'
  /** A webhook endpoint was created, changed or deleted; key: the app id. */
  | 'webhooks'
  /**
   * Webhook events were committed to the outbox; key: the app id. The delivery worker looks at
   * once; apps without endpoints write none, so their changes never wake it.
   */
  | 'webhook-events'
  /** Stored items were rewritten (retention blanked tool data); key: `*`. Kept history windows go. */
  | 'history';

export type SignalListener = (key: string) => void;

export interface Signals {
  /** Whether other processes' notices arrive (PostgreSQL). Without it, readers keep polling. */
  readonly crossProcess: boolean;
  /** Tells every process on this database, this one included, that `key` of `topic` changed. */
  publish(topic: SignalTopic, key: string): void;
  /**
   * Calls `listener` on each notice of `topic`. After the connection that carries notices was
   * lost and restored, `listener` gets `'*'`: notices may have been missed, so read everything.
   */
  subscribe(topic: SignalTopic, listener: SignalListener): () => void;
  /**
   * Whether this process holds the cluster-wide lead named `name` (taking it if it is free), so
   * periodic work (deadline sweeps) runs once across replicas. A dead process's lead passes to
   * another within seconds: it is bound to its database session.
   */
  lead(name: string): Promise<boolean>;
  close(): Promise<void>;
}
