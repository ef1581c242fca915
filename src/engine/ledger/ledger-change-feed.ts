import type { Clock } from '../../domain/clock.ts';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import type { LedgerRepo } from '../../store/store.ts';
import type { Signals } from '../../store/signals.ts';

export type LedgerChangeListener = (entries: LedgerEntryRecord[]) => void;

export interface LedgerChangeFeedSettings {
  /**
   * How often an app with subscribers is checked for changes. A notice (`Signals`) makes the
   * check at once; where notices reach every process (PostgreSQL), the poll is only a safety net
   * and runs `pushedPollMs` apart.
   */
  pollMs: number;
  pushedPollMs?: number;
  /**
   * How far back each check looks again. Writers stamp rows with their own clock and commit
   * later than they stamp, so a row can appear with a time slightly before the last check;
   * looking back (and skipping rows already seen) catches it.
   */
  lookbackMs: number;
}

const BATCH = 500;

interface AppWatch {
  listeners: Set<LedgerChangeListener>;
  /** Lower bound of the next query (minus the look-back). */
  since: string;
  /** `id:state` of rows already reported, with their change time, to skip them when seen again. */
  seen: Map<string, string>;
  timer: NodeJS.Timeout | null;
  polling: boolean;
  /** A notice came during a read: read again right after it. */
  again: boolean;
}

/**
 * Ledger changes (a call made pending, a call resolved) per app, read from the store rather
 * than from memory: changes made by other Baton processes on the same database are seen too,
 * and nothing is lost when a process restarts. One read per app serves all of its subscribers.
 * A ledger write's notice triggers the read at once; the poll only catches what no notice told.
 */
export class LedgerChangeFeed {
  private readonly apps = new Map<string, AppWatch>();
  private readonly unsubscribe: () => void;
  private readonly pollMs: number;

  constructor(
    private readonly ledger: Pick<LedgerRepo, 'listChangedSince'>,
    private readonly clock: Clock,
    private readonly settings: LedgerChangeFeedSettings = { pollMs: 500, pushedPollMs: 10_000, lookbackMs: 5_000 },
    private readonly onError: (error: unknown) => void = () => {},
    signals?: Signals,
  ) {
    this.pollMs = signals?.crossProcess ? (settings.pushedPollMs ?? settings.pollMs) : settings.pollMs;
    this.unsubscribe = signals?.subscribe('ledger', (appId) => this.onNotice(appId)) ?? (() => {});
  }

  /** Calls `listener` with each batch of changes from now on; returns the unsubscribe function. */
  subscribe(appId: string, listener: LedgerChangeListener): () => void {
    let watch = this.apps.get(appId);
    if (!watch) {
      watch = {
        listeners: new Set(),
        since: this.clock.now().toISOString(),
        seen: new Map(),
        timer: null,
        polling: false,
        again: false,
      };
      this.apps.set(appId, watch);
      this.schedule(appId, watch);
    }
    watch.listeners.add(listener);
    return () => {
      watch.listeners.delete(listener);
      if (watch.listeners.size === 0) this.stop(appId, watch);
    };
  }

  /** Changes at or after `since`, for a subscriber catching up after a reconnect (Last-Event-ID). */
  changesSince(appId: string, since: string): Promise<LedgerEntryRecord[]> {
    return this.ledger.listChangedSince(appId, since, BATCH);
  }

  close(): void {
    this.unsubscribe();
    for (const [appId, watch] of this.apps) this.stop(appId, watch);
  }

  /** A ledger changed (`'*'`: notices may have been lost): read the watched apps it concerns now. */
  private onNotice(appId: string): void {
    for (const [watchedId, watch] of this.apps) {
      if (appId !== '*' && appId !== watchedId) continue;
      if (watch.polling) {
        watch.again = true;
        continue;
      }
      if (watch.timer) clearTimeout(watch.timer);
      this.schedule(watchedId, watch, 0);
    }
  }

  private stop(appId: string, watch: AppWatch): void {
    if (watch.timer) clearTimeout(watch.timer);
    watch.timer = null;
    watch.listeners.clear();
    if (this.apps.get(appId) === watch) this.apps.delete(appId);
  }

  private schedule(appId: string, watch: AppWatch, delay = this.pollMs): void {
    watch.timer = setTimeout(() => void this.poll(appId, watch), delay);
    watch.timer.unref();
  }

  private async poll(appId: string, watch: AppWatch): Promise<void> {
    if (watch.polling || this.apps.get(appId) !== watch) return;
    watch.polling = true;
    watch.again = false;
    let full = false;
    try {
      const from = new Date(Date.parse(watch.since) - this.settings.lookbackMs).toISOString();
      const rows = await this.ledger.listChangedSince(appId, from, BATCH);
      full = rows.length === BATCH;
      const fresh = rows.filter((row) => !watch.seen.has(`${row.id}:${row.state}`));
      for (const row of fresh) watch.seen.set(`${row.id}:${row.state}`, row.updatedAt);
      const latest = rows.at(-1)?.updatedAt;
      // A full batch means more rows wait: move the bound to the last row so the next poll progresses.
      if (latest !== undefined && (full || latest > watch.since))
        watch.since = full ? new Date(Date.parse(latest) + this.settings.lookbackMs).toISOString() : latest;
      this.forget(watch);
      if (fresh.length > 0) for (const listener of [...watch.listeners]) listener(fresh);
    } catch (error) {
      this.onError(error);
    } finally {
      watch.polling = false;
      if (this.apps.get(appId) === watch) this.schedule(appId, watch, full || watch.again ? 0 : this.pollMs);
    }
  }

  /** Drops remembered rows older than any future query can return, keeping the set small. */
  private forget(watch: AppWatch): void {
    const horizon = new Date(Date.parse(watch.since) - 2 * this.settings.lookbackMs).toISOString();
    for (const [key, changedAt] of watch.seen) if (changedAt < horizon) watch.seen.delete(key);
  }
}
