import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyRecord, ApiKeyRole } from '../../domain/records.ts';
import { DuplicateKeyError, type Store } from '../../store/store.ts';
import { newId } from '../../domain/ids.ts';

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function generateApiKeySecret(): string {
  return `bk_${randomBytes(24).toString('base64url')}`;
}

/** Stores a key for an app (hashed) and returns the record; the caller shows the secret once. */
export async function createApiKey(
  store: Store,
  appId: string,
  secret: string,
  role: ApiKeyRole,
  name: string | null,
  expiresAt: string | null = null,
  toolScope: string[] | null = null,
): Promise<ApiKeyRecord> {
  const record: ApiKeyRecord = {
    id: newId('key'),
    appId,
    name,
    keyHash: hashApiKey(secret),
    prefix: secret.slice(0, 7),
    role,
    createdAt: new Date().toISOString(),
    revokedAt: null,
    expiresAt,
    lastUsedAt: null,
    toolScope,
  };
  await store.apiKeys.insert(record);
  return record;
}

/**
 * The first operator key: `BATON_ADMIN_KEY` when set (registered if new), else generated once when
 * no key exists at all. Returns the generated secret so the caller can print it once.
 */
export async function bootstrapAdminKey(
  store: Store,
  appId: string,
  adminKey: string | null,
): Promise<{ generated: string | null }> {
  if (adminKey) {
    if (await store.apiKeys.findByHash(hashApiKey(adminKey))) return { generated: null };
    try {
      await createApiKey(store, appId, adminKey, 'operator', 'BATON_ADMIN_KEY');
    } catch (error) {
      // Replicas starting together with the same key: one of them stored it, which is the point.
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    return { generated: null };
  }
  if ((await store.apiKeys.count()) > 0) return { generated: null };
  const secret = generateApiKeySecret();
  await createApiKey(store, appId, secret, 'operator', 'first admin key');
  return { generated: secret };
}
