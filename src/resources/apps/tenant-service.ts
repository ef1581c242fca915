import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import type { Principal } from '../../domain/principal.ts';
import type { ApiKeyRecord, AppRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { createApiKey, generateApiKeySecret } from '../keys/api-keys.ts';
import { DEFAULT_LOCATION, DEFAULT_PROJECT, newAppRecord } from './app-records.ts';

const createAppRequest = z
  .object({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'names must match ^[a-zA-Z0-9_-]{1,64}$') })
  .strict();
const createKeyRequest = z
  .object({ name: z.string().max(200).optional(), role: z.enum(['admin', 'member']).optional() })
  .strict();

/** A new API key: the record, and the secret, which is shown once and never stored. */
export interface IssuedKey {
  key: ApiKeyRecord;
  secret: string;
}

/**
 * Apps as tenants and their API keys (Baton's native admin API): an admin key creates apps in its
 * project, each with a first admin key, and keys for its own app. Keys are stored hashed.
 */
export class TenantService {
  constructor(private readonly store: Store) {}

  /** `{name}` → a new app in the caller's project, with its first admin key. */
  async createApp(principal: Principal, request: unknown): Promise<{ app: AppRecord } & IssuedKey> {
    requireAdmin(principal);
    const { name } = parseRequest(createAppRequest, request);
    if (await this.store.apps.getByName(name)) {
      throw new BatonError('app_exists', `An app named '${name}' already exists.`, { param: 'name' });
    }
    // A new app joins the project of the key that creates it (admin keys manage their project).
    const creator = await this.store.apps.get(principal.appId);
    const app = newAppRecord(
      name,
      creator?.project ?? DEFAULT_PROJECT,
      creator?.location ?? DEFAULT_LOCATION,
      new Date().toISOString(),
    );
    await this.store.apps.insert(app);
    const secret = generateApiKeySecret();
    const key = await createApiKey(this.store, app.id, secret, 'admin', `first key of ${name}`);
    return { app, key, secret };
  }

  /** `{name?, role?}` → a new key of the caller's app (a member key unless `role` says admin). */
  async createKey(principal: Principal, request: unknown): Promise<IssuedKey> {
    requireAdmin(principal);
    const body = parseRequest(createKeyRequest, request);
    const secret = generateApiKeySecret();
    const key = await createApiKey(this.store, principal.appId, secret, body.role ?? 'member', body.name ?? null);
    return { key, secret };
  }

  /** The app of the caller's key. */
  async appOf(principal: Principal): Promise<AppRecord> {
    const app = await this.store.apps.get(principal.appId);
    if (!app)
      throw new BatonError('app_deleted', 'The app of this API key no longer exists; use a key of another app.');
    return app;
  }
}

function requireAdmin(principal: Principal): void {
  if (principal.role !== 'admin') {
    throw new BatonError('admin_key_required', 'This endpoint needs an admin API key.');
  }
}
