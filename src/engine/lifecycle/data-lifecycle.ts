import type { AuditEventRecord, RowCounts } from '../../domain/lifecycle.ts';
import type { Page, PageRequest } from '../../domain/page.ts';
import type { Principal } from '../../domain/principal.ts';
import type { ConversationRecord } from '../../domain/records.ts';
import { runInBackground, type EngineContext } from '../engine-context.ts';
import { applyRetention, type RetentionOptions, type RetentionRun } from './retention.ts';
import { purgeApp, type AppPurgeOptions } from './app-purge.ts';
import { auditAppFor, auditEvent } from './audit-trail.ts';
import { deleteConversationData, type DeleteOptions } from './conversation-deletion.ts';
import { dumpCounts, readConversationDump, type ConversationDump } from './conversation-export.ts';

export type { ConversationDump } from './conversation-export.ts';
export type { DeleteOptions } from './conversation-deletion.ts';
export type { RetentionAppResult, RetentionOptions, RetentionRun } from './retention.ts';
export type { AppPurgeOptions } from './app-purge.ts';

/** What the lifecycle needs of the engine: a conversation by id (with an unwritten opening written first). */
export interface LifecycleEngine {
  getConversation(appId: string, conversationId: string): Promise<ConversationRecord>;
}

const BULK_PAGE = 50;
/** How often the sweeper's leader starts a retention run (policies are in days; a run catches up on everything due). */
export const RETENTION_INTERVAL_MS = 15 * 60_000;
/**
 * How often the sweeper's leader looks for deleted apps whose purge did not finish (the request
 * that deleted one purges it itself; this resumes a purge its process died in, or that failed).
 */
export const PURGE_RESUME_INTERVAL_MS = 10_000;
/** How long the leader waits after a failed purge before trying again. */
export const PURGE_RETRY_MS = 60_000;

/**
 * Data lifecycle (issue 21): deleting whole conversations, exporting them, and the per-app audit
 * trail of both. One delete serves every face (Threads, Responses, CES conversations).
 */
export class DataLifecycle {
  constructor(
    private readonly context: EngineContext,
    private readonly engine: LifecycleEngine,
  ) {}

  /** Deletes a conversation and every row of it (see `deleteConversationData`); returns the rows removed. */
  async deleteConversation(
    appId: string,
    conversationId: string,
    actor: string | null,
    options: DeleteOptions = {},
  ): Promise<RowCounts> {
    await this.engine.getConversation(appId, conversationId);
    return deleteConversationData(this.context, appId, conversationId, actor, options);
  }

  /** The whole conversation; the export is recorded in the app's audit trail. */
  async exportConversation(appId: string, conversationId: string, actor: string | null): Promise<ConversationDump> {
    const dump = await readConversationDump(this.context, await this.engine.getConversation(appId, conversationId));
    await this.record(
      auditEvent(this.context, appId, actor, 'conversation.exported', conversationId, dumpCounts(dump)),
    );
    return dump;
  }

  /**
   * Every conversation of the app, newest first, one at a time (a bulk export streams them). The
   * export is recorded once it ends, with how many conversations it handed out and whether it
   * reached the end (a client that disconnects stops it).
   */
  async *exportConversations(appId: string, actor: string | null): AsyncGenerator<ConversationDump> {
    let exported = 0;
    let complete = false;
    try {
      let cursor: string | null = null;
      do {
        const page: Page<ConversationRecord> = await this.context.store.conversations.list(
          { appId },
          { limit: BULK_PAGE, cursor },
        );
        for (const conversation of page.data) {
          yield await readConversationDump(this.context, conversation);
          exported += 1;
        }
        cursor = page.nextCursor;
      } while (cursor);
      complete = true;
    } finally {
      await this.record(
        auditEvent(
          this.context,
          appId,
          actor,
          'conversations.exported',
          null,
          { conversations: exported },
          { complete },
        ),
      );
    }
  }

  /**
   * An app's audit events, newest first: the caller's own app's, or, for an operator key, those of
   * any app named by `appId`, deleted and purged apps included (their events outlive them).
   */
  listAuditEvents(principal: Principal, appId: string | undefined, page: PageRequest): Promise<Page<AuditEventRecord>> {
    return this.context.store.lifecycle.listAudit(auditAppFor(principal, appId), page);
  }

  /**
   * Purges every deleted app whose purge has not finished, to completion, one after the other (see
   * `purgeApp`); returns their `app.purged` events. The sweeper's leader runs it (`startPurgesWhenDue`);
   * tests call it.
   */
  async continuePurges(options: AppPurgeOptions = {}): Promise<AuditEventRecord[]> {
    const events: AuditEventRecord[] = [];
    for (const tombstone of await this.context.store.apps.listTombstones()) {
      const event = await purgeApp(this.context, tombstone.id, options);
      if (event) events.push(event);
    }
    return events;
  }

  /**
   * The sweeper's chore (its leader only): every `PURGE_RESUME_INTERVAL_MS`, resumes in the
   * background the purges of deleted apps that did not finish. Returns at once.
   */
  startPurgesWhenDue(): void {
    const now = this.context.clock.now().getTime();
    if (this.purgesRunning || now < this.nextPurgesAt) return;
    this.purgesRunning = true;
    this.nextPurgesAt = now + PURGE_RESUME_INTERVAL_MS;
    runInBackground(this.context, 'app purges', async () => {
      try {
        await this.continuePurges();
      } catch (error) {
        this.nextPurgesAt = this.context.clock.now().getTime() + PURGE_RETRY_MS;
        throw error; // logged by runInBackground
      } finally {
        this.purgesRunning = false;
      }
    });
  }

  private purgesRunning = false;
  private nextPurgesAt = 0;

  /**
   * Applies every app's retention policy now, to completion, in bounded batches (see
   * `applyRetention`); tests call it after moving the clock.
   */
  applyRetention(options: RetentionOptions = {}): Promise<RetentionRun> {
    return applyRetention(this.context, options);
  }

  /**
   * The sweeper's chore (its leader only): starts a retention run in the background when the last
   * one started `RETENTION_INTERVAL_MS` ago or more and none is running, so the deadline sweep
   * never waits for it. Returns at once.
   */
  startRetentionWhenDue(): void {
    const now = this.context.clock.now().getTime();
    if (this.retentionRunning || now < this.nextRetentionAt) return;
    this.retentionRunning = true;
    this.nextRetentionAt = now + RETENTION_INTERVAL_MS;
    runInBackground(this.context, 'retention', async () => {
      try {
        await applyRetention(this.context);
      } finally {
        this.retentionRunning = false;
      }
    });
  }

  private retentionRunning = false;
  private nextRetentionAt = 0;

  /** Records an event of the app's audit trail (an app purge records its own, which outlives the app). */
  record(event: AuditEventRecord): Promise<void> {
    return this.context.store.lifecycle.insertAudit(event);
  }
}
