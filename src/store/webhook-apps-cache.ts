import type { WebhookRepo } from './store.ts';
import type { Signals } from './signals.ts';

/** How long the list is trusted where notices do not cross processes (several SQLite processes on one file). */
export const WEBHOOK_APPS_TTL_MS = 1_000;
/** A safety net where they do (PostgreSQL): a notice lost with a connection is caught up this late. */
const CROSS_PROCESS_TTL_MS = 60_000;

/**
 * Which apps have at least one enabled webhook endpoint, per process: the outbox writes events
 * only for them, so an app without endpoints pays no statement per change. An endpoint created,
 * edited, disabled or deleted anywhere publishes the `webhooks` notice; every process then reads
 * the list again on its next change. Events of changes committed in the moment between an
 * endpoint's creation and the notice may be missed: an endpoint gets the changes after it exists.
 */
export class WebhookApps {
  private apps: ReadonlySet<string> | null = null;
  private loadedAt = 0;
  private generation = 0;
  private readonly ttlMs: number;

  constructor(private readonly signals: Signals) {
    this.ttlMs = signals.crossProcess ? CROSS_PROCESS_TTL_MS : WEBHOOK_APPS_TTL_MS;
    signals.subscribe('webhooks', () => this.forget());
  }

  /** The apps with endpoints, read with `load` (on the caller's connection or transaction) when not known. */
  async current(load: () => Promise<string[]>): Promise<ReadonlySet<string>> {
    if (this.apps !== null && Date.now() - this.loadedAt < this.ttlMs) return this.apps;
    const generation = this.generation;
    const apps = new Set(await load());
    // A notice that arrived while reading may be about a change the read did not see.
    if (generation === this.generation) {
      this.apps = apps;
      this.loadedAt = Date.now();
    }
    return apps;
  }

  /** An endpoint of `appId` changed: every process reads the list again. */
  changed(appId: string): void {
    this.forget();
    this.signals.publish('webhooks', appId);
  }

  /** Events of these apps were committed to the outbox: every process's delivery worker looks now. */
  eventsWritten(appIds: Iterable<string>): void {
    for (const appId of new Set(appIds)) this.signals.publish('webhook-events', appId);
  }

  private forget(): void {
    this.apps = null;
    this.generation += 1;
  }
}

/** The webhook repository, telling every process when an app's endpoints change, and answering which apps have any from the kept list. */
export function announcingEndpointChanges(repo: WebhookRepo, apps: WebhookApps): WebhookRepo {
  return {
    ...repo,
    // The list the outbox keeps: the delivery worker asks it on every tick.
    appsWithEndpoints: async () => [...(await apps.current(() => repo.appsWithEndpoints()))],
    async insertEndpoint(record) {
      try {
        await repo.insertEndpoint(record);
      } finally {
        apps.changed(record.appId);
      }
    },
    async updateEndpoint(appId, id, patch) {
      try {
        return await repo.updateEndpoint(appId, id, patch);
      } finally {
        apps.changed(appId);
      }
    },
    async deleteEndpoint(appId, id) {
      try {
        return await repo.deleteEndpoint(appId, id);
      } finally {
        apps.changed(appId);
      }
    },
  };
}
