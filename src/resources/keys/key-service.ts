import { requireCapability, roleAllows } from '../../domain/access.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import type { Principal } from '../../domain/principal.ts';
import type { ApiKeyRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import type { ApiKeyCache } from './api-key-cache.ts';
import { createApiKey, generateApiKeySecret } from './api-keys.ts';
import { createKeyRequest, DEFAULT_ROTATION_GRACE_SECONDS, listKeysQuery, rotateKeyRequest } from './key-requests.ts';

/** A new API key: the record, and the secret, which is shown once and never stored. */
export interface IssuedKey {
  key: ApiKeyRecord;
  secret: string;
}

/** A rotation: the new key, and the old one with the expiry its grace period gave it. */
export interface RotatedKey extends IssuedKey {
  replaced: ApiKeyRecord;
}

/** Keys listed per app, newest first; an app needs few live keys, so one page is enough. */
const LIST_LIMIT = 500;

/**
 * API keys as records: minted, listed (never with their secret), revoked and rotated. An app admin
 * manages its own app's keys up to its own role; an operator manages any app's, operators included.
 * A key this process revokes or rotates is forgotten by the key cache at once.
 */
export class KeyService {
  constructor(
    private readonly store: Store,
    private readonly cache: ApiKeyCache,
  ) {}

  /** `{name?, role?, expires_in_seconds?, app_id?}` → a new key (a member key unless `role` says otherwise). */
  async create(principal: Principal, request: unknown): Promise<IssuedKey> {
    requireCapability(principal, 'manage', 'Creating API keys');
    const body = parseRequest(createKeyRequest, request);
    const appId = await this.appFor(principal, body.app_id);
    const role = body.role ?? 'member';
    this.requireReach(principal, role, `Creating a key with role '${role}'`);
    const expiresAt = body.expires_in_seconds ? this.after(body.expires_in_seconds) : null;
    const secret = generateApiKeySecret();
    const toolScope = body.tools ? [...new Set(body.tools)] : null;
    const key = await createApiKey(this.store, appId, secret, role, body.name ?? null, expiresAt, toolScope);
    return { key, secret };
  }

  /** The keys of the caller's app (or, for an operator, of `app_id`). */
  async list(principal: Principal, query: unknown): Promise<ApiKeyRecord[]> {
    requireCapability(principal, 'manage', 'Listing API keys');
    const { app_id } = parseRequest(listKeysQuery, query, 'query');
    return this.store.apiKeys.listByApp(await this.appFor(principal, app_id), LIST_LIMIT);
  }

  /** Revokes a key: from now on it gets 401 `api_key_revoked` (in other processes within the key cache's bound). */
  async revoke(principal: Principal, keyId: string, query: unknown): Promise<ApiKeyRecord> {
    requireCapability(principal, 'manage', 'Revoking API keys');
    const { app_id } = parseRequest(listKeysQuery, query, 'query');
    const appId = await this.appFor(principal, app_id);
    const current = await this.keyOf(appId, keyId);
    this.requireReach(principal, current.role, `Revoking a key with role '${current.role}'`);
    const revoked = await this.store.apiKeys.revoke(appId, keyId, new Date().toISOString());
    this.cache.forget(current.keyHash);
    return revoked ?? current;
  }

  /**
   * Rotates a key: a new key with the same app, role and name, and the old one keeps working for
   * `grace_seconds` (default a day) so callers can switch without downtime, then expires.
   */
  async rotate(principal: Principal, keyId: string, request: unknown, query: unknown): Promise<RotatedKey> {
    requireCapability(principal, 'manage', 'Rotating API keys');
    const body = parseRequest(rotateKeyRequest, request);
    const { app_id } = parseRequest(listKeysQuery, query, 'query');
    const appId = await this.appFor(principal, app_id);
    const current = await this.keyOf(appId, keyId);
    this.requireReach(principal, current.role, `Rotating a key with role '${current.role}'`);
    if (current.revokedAt !== null || (current.expiresAt !== null && Date.parse(current.expiresAt) <= Date.now())) {
      throw new BatonError(
        'api_key_not_found',
        `API key '${keyId}' is revoked or expired, so there is nothing to rotate; create a new key with POST /v1/api-keys.`,
        { param: 'id' },
      );
    }
    const secret = generateApiKeySecret();
    const expiresAt = body.expires_in_seconds ? this.after(body.expires_in_seconds) : null;
    const key = await createApiKey(this.store, appId, secret, current.role, current.name, expiresAt, current.toolScope);
    await this.store.apiKeys.expireBy(appId, keyId, this.after(body.grace_seconds ?? DEFAULT_ROTATION_GRACE_SECONDS));
    this.cache.forget(current.keyHash);
    return { key, secret, replaced: (await this.store.apiKeys.get(appId, keyId)) ?? current };
  }

  /** The app a key operation is about: the caller's own, or any app an operator names. */
  private async appFor(principal: Principal, appId: string | undefined): Promise<string> {
    if (appId === undefined || appId === principal.appId) return principal.appId;
    // Another app is not found for everyone but an operator, as on every face.
    if (roleAllows(principal.role, 'operate') && (await this.store.apps.get(appId))) return appId;
    throw new BatonError('app_not_found', `App '${appId}' was not found; omit app_id to manage this key's own app.`, {
      param: 'app_id',
    });
  }

  private async keyOf(appId: string, keyId: string): Promise<ApiKeyRecord> {
    const key = await this.store.apiKeys.get(appId, keyId);
    if (!key)
      throw new BatonError(
        'api_key_not_found',
        `API key '${keyId}' was not found in this app; list keys with GET /v1/api-keys.`,
        {
          param: 'id',
        },
      );
    return key;
  }

  /** Nobody mints or removes a key above their own role (an app admin cannot make an operator). */
  private requireReach(principal: Principal, role: ApiKeyRecord['role'], action: string): void {
    const needed = role === 'operator' ? 'operate' : 'manage';
    requireCapability(principal, needed, action);
  }

  private after(seconds: number): string {
    return new Date(Date.now() + seconds * 1000).toISOString();
  }
}
