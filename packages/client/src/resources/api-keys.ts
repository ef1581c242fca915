import type { Transport } from '../http/transport.ts';
import type {
  ApiKey,
  ApiKeyCreateBody,
  ApiKeyRotateBody,
  CreatedApp,
  IssuedApiKey,
  RotatedApiKey,
} from '../wire/keys.ts';
import { callSettings, type CallOptions } from './call-options.ts';

/** Which app a key call is about: the key's own unless an operator names another. */
export interface AppScope {
  app_id?: string;
}

/**
 * `/v1/api-keys`: an app admin's keys of its own app (an operator's of any app, with `app_id`).
 * Secrets are returned once, by `create` and `rotate`; revoked and expired keys get 401 at once.
 */
export class ApiKeys {
  constructor(private readonly http: Transport) {}

  list(scope: AppScope = {}, options?: CallOptions): Promise<{ object: 'list'; data: ApiKey[] }> {
    return this.http.json({ method: 'GET', path: '/v1/api-keys', query: { ...scope }, ...callSettings(options) });
  }

  /** A new key (a member key unless `role` says otherwise); keep `key` from the answer, it is not shown again. */
  create(body: ApiKeyCreateBody = {}, options?: CallOptions): Promise<IssuedApiKey> {
    return this.http.json({ method: 'POST', path: '/v1/api-keys', body, ...callSettings(options) });
  }

  /** Revokes a key; it gets 401 `api_key_revoked` from then on. */
  revoke(id: string, scope: AppScope = {}, options?: CallOptions): Promise<ApiKey> {
    return this.http.json({
      method: 'DELETE',
      path: `/v1/api-keys/${encodeURIComponent(id)}`,
      query: { ...scope },
      ...callSettings(options),
    });
  }

  /** A new key with the same role and name; the old one works for `grace_seconds` more (default a day). */
  rotate(id: string, body: ApiKeyRotateBody = {}, scope: AppScope = {}, options?: CallOptions): Promise<RotatedApiKey> {
    return this.http.json({
      method: 'POST',
      path: `/v1/api-keys/${encodeURIComponent(id)}/rotate`,
      body,
      query: { ...scope },
      ...callSettings(options),
    });
  }
}

/** `/v1/apps`: creating tenants, with an operator key. */
export class Apps {
  constructor(private readonly http: Transport) {}

  /** A new app and its first key (an admin of that app only). */
  create(body: { name: string }, options?: CallOptions): Promise<CreatedApp> {
    return this.http.json({ method: 'POST', path: '/v1/apps', body, ...callSettings(options) });
  }
}
