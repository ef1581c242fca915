import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AppRecord } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { createApiKey, generateApiKeySecret } from '../keys/api-keys.ts';
import type { IssuedKey } from '../keys/key-service.ts';
import { requireAppOperator } from './app-access.ts';
import { DEFAULT_LOCATION, DEFAULT_PROJECT, newAppRecord } from './app-records.ts';

export const createAppRequest = z
  .object({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'names must match ^[a-zA-Z0-9_-]{1,64}$') })
  .strict();

/**
 * Apps as tenants (Baton's native admin API): an operator creates apps, each with a first key that
 * is an admin of that app only. Keys are stored hashed.
 */
export class TenantService {
  constructor(private readonly store: Store) {}

  /** `{name}` → a new app, with its first (app admin) key. */
  async createApp(principal: Principal, request: unknown): Promise<{ app: AppRecord } & IssuedKey> {
    requireAppOperator(principal, 'Creating an app');
    const { name } = parseRequest(createAppRequest, request);
    if (await this.store.apps.getByName(name)) {
      throw new BatonError('app_exists', `An app named '${name}' already exists.`, { param: 'name' });
    }
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

  /** The app of the caller's key. */
  async appOf(principal: Principal): Promise<AppRecord> {
    const app = await this.store.apps.get(principal.appId);
    if (!app)
      throw new BatonError('app_deleted', 'The app of this API key no longer exists; use a key of another app.');
    return app;
  }
}
