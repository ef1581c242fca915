import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ResponseRecord } from '../../domain/records.ts';
import type { ChainEngine } from './chain-engine.ts';

/** The `store: false` responses one WebSocket connection created, which only it may continue. */
export interface ConnectionResponses {
  has(responseId: string): boolean;
  remember(record: ResponseRecord): void;
  forget(responseId: string): void;
}

/** How many `store: false` responses one connection can continue; older ones are evicted. */
export const MAX_CONNECTION_RESPONSES = 16;

export interface ConnectionOwner {
  appId: string;
  actor: string | null;
}

type Logger = { warn(details: object, message: string): void };

/**
 * The `store: false` responses of one WebSocket connection. Their rows and items exist in the
 * database only because a turn needs its history; they are readable by nobody and continuable
 * only here, and they must not outlive the connection. So this cache also owns their cleanup:
 *
 * - `conversations` holds the conversations this connection's unstored responses created
 *   (`ownsConversation`). Those, and only those, are purged: a `store: false` continuation of a
 *   stored response lives in that response's conversation, which is not ours to delete.
 * - A stored response that continued one of ours lives in our conversation and goes with it:
 *   the unstored history it builds on must not persist.
 * - Purges run in the background (`remember`/`forget` are synchronous for ResponseService), one
 *   after another; `close()` waits for all of them, so a server shutdown never leaves one half done.
 */
export class ConnectionResponseCache implements ConnectionResponses {
  /** Insertion order is age: the first entry is the next to evict. */
  private readonly records = new Map<string, ResponseRecord>();
  private readonly conversations = new Set<string>();
  private purging: Promise<void> = Promise.resolve();

  constructor(
    private readonly engine: Pick<ChainEngine, 'deleteConversation'>,
    private readonly owner: ConnectionOwner,
    private readonly log: Logger,
    private readonly limit = MAX_CONNECTION_RESPONSES,
  ) {}

  get size(): number {
    return this.records.size;
  }

  has(responseId: string): boolean {
    return this.records.has(responseId);
  }

  remember(record: ResponseRecord): void {
    this.records.delete(record.id);
    this.records.set(record.id, record);
    if (record.ownsConversation) this.conversations.add(record.conversationId);
    while (this.records.size > this.limit) {
      const oldest = this.records.values().next().value;
      if (!oldest) break;
      this.records.delete(oldest.id);
      // A chain continued on the same conversation still needs it for its newer responses; it is
      // purged when the last of them leaves the cache (or at close).
      if (this.conversations.has(oldest.conversationId) && !this.usedBy(oldest.conversationId))
        this.purge(oldest.conversationId);
    }
  }

  /**
   * The id can no longer be continued (its continuation failed). If it created its conversation,
   * the conversation goes at once, and with it every cached response that lived in it.
   */
  forget(responseId: string): void {
    const record = this.records.get(responseId);
    if (!record) return;
    this.records.delete(responseId);
    if (!record.ownsConversation || !this.conversations.has(record.conversationId)) return;
    for (const [id, other] of this.records) if (other.conversationId === record.conversationId) this.records.delete(id);
    this.purge(record.conversationId);
  }

  /** The connection ended: nothing of its `store: false` responses may remain. */
  async close(): Promise<void> {
    this.records.clear();
    for (const conversationId of [...this.conversations]) this.purge(conversationId);
    await this.purging;
  }

  private usedBy(conversationId: string): boolean {
    for (const record of this.records.values()) if (record.conversationId === conversationId) return true;
    return false;
  }

  private purge(conversationId: string): void {
    this.conversations.delete(conversationId);
    const { appId, actor } = this.owner;
    this.purging = this.purging.then(async () => {
      try {
        await this.engine.deleteConversation(appId, conversationId, actor);
      } catch (error) {
        // Already gone (e.g. deleted through the Threads API) is the outcome we wanted.
        if (error instanceof BatonError && error.kind === 'not_found') return;
        this.log.warn(
          { err: error, app_id: appId, conversation_id: conversationId },
          'could not purge the conversation of a store:false WebSocket response',
        );
      }
    });
  }
}
