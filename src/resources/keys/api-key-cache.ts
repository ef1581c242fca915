import type { ApiKeyRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';

const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

/**
 * Resolves key hashes to key records with a short-lived cache: every request authenticates, and
 * the lookup was one query per request. Keys are only ever added, so a stale entry can at worst
 * let a just-deleted key (no API deletes keys yet) work for ten more seconds. Misses are not
 * cached, so a new key works at once.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { key: ApiKeyRecord; expiresAt: number }>();

  constructor(private readonly store: Store) {}

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
    this.entries.set(keyHash, { key, expiresAt: now + TTL_MS });
    return key;
  }
}
