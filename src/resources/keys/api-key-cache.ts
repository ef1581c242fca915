import type { ApiKeyRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';

/** How long a looked-up key is trusted without reading the store again (the bound on other processes). */
export const KEY_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;
/** Last use is written at most this often per key, so authentication stays a read. */
const LAST_USE_RESOLUTION_MS = 60_000;

/**
 * Resolves key hashes to key records with a short-lived cache: every request authenticates, and
 * the lookup was one query per request. A key revoked, rotated or deleted with its app through
 * this process is forgotten at once, and in the other processes on the database as soon as its
 * notice arrives (PostgreSQL); where notices do not cross processes (SQLite), they see it within
 * KEY_CACHE_TTL_MS. Misses are
 * not cached, so a new key works at once.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { key: ApiKeyRecord; expiresAt: number }>();
  private readonly lastRecordedUse = new Map<string, number>();

  constructor(private readonly store: Store) {
    // Another replica revoked, rotated or deleted: drop the key here too (within milliseconds on
    // PostgreSQL, instead of when the cached entry expires).
    store.signals.subscribe('api-keys', (notice) => this.drop(notice));
  }

  async find(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const now = Date.now();
    const cached = this.entries.get(keyHash);
    if (cached && cached.expiresAt > now) return cached.key;
    const key = await this.store.apiKeys.findByHash(keyHash);
    if (!key) {
      this.entries.delete(keyHash);
      return undefined;
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(keyHash, { key, expiresAt: now + KEY_CACHE_TTL_MS });
    return key;
  }

  /** Notes that `key` authenticated a request; writes `last_used_at` at most once a minute per key. */
  recordUse(key: ApiKeyRecord): void {
    const now = Date.now();
    const last = this.lastRecordedUse.get(key.id) ?? (key.lastUsedAt ? Date.parse(key.lastUsedAt) : 0);
    if (now - last < LAST_USE_RESOLUTION_MS) return;
    if (this.lastRecordedUse.size >= MAX_ENTRIES) this.lastRecordedUse.clear();
    this.lastRecordedUse.set(key.id, now);
    const at = new Date(now).toISOString();
    const staleBefore = new Date(now - LAST_USE_RESOLUTION_MS).toISOString();
    // Best effort: a lost last-use stamp must never fail the request it describes.
    this.store.apiKeys.touch(key.id, at, staleBefore).catch(() => undefined);
  }

  /** Drops one key (revoked or rotated), here and in every process on the database. */
  forget(keyHash: string): void {
    this.entries.delete(keyHash);
    this.store.signals.publish('api-keys', `hash:${keyHash}`);
  }

  /** Drops every key of an app (deleted), here and in every process on the database. */
  forgetApp(appId: string): void {
    this.drop(`app:${appId}`);
    this.store.signals.publish('api-keys', `app:${appId}`);
  }

  private drop(notice: string): void {
    if (notice === '*') this.entries.clear();
    else if (notice.startsWith('hash:')) this.entries.delete(notice.slice('hash:'.length));
    else if (notice.startsWith('app:')) {
      const appId = notice.slice('app:'.length);
      for (const [hash, entry] of this.entries) if (entry.key.appId === appId) this.entries.delete(hash);
    }
  }
}
