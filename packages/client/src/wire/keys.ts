/** What a key may do: `reader` reads, `member` also talks to agents and answers calls, `admin` also changes its app, `operator` runs the server. */
export type ApiKeyRole = 'reader' | 'member' | 'admin' | 'operator';

/** An API key as `GET /v1/api-keys` lists it: never with its secret. */
export interface ApiKey {
  object: 'api_key';
  id: string;
  app_id: string;
  name: string | null;
  /** The first characters of the secret, to tell keys apart. */
  prefix: string;
  role: ApiKeyRole;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A key just created or rotated: the secret is in `key`, shown this once. */
export interface IssuedApiKey extends ApiKey {
  key: string;
}

/** A rotation's answer: the new key, and the old one with the expiry its grace period gave it. */
export interface RotatedApiKey extends IssuedApiKey {
  replaces: ApiKey;
}

/** `POST /v1/api-keys`; `app_id` is for operator keys minting a key of another app. */
export interface ApiKeyCreateBody {
  name?: string;
  role?: ApiKeyRole;
  /** 60 s to five years; omitted, the key does not expire. */
  expires_in_seconds?: number;
  app_id?: string;
}

/** `POST /v1/api-keys/{id}/rotate`. */
export interface ApiKeyRotateBody {
  /** How long the old key keeps working: 0 to 30 days, default one day. */
  grace_seconds?: number;
  expires_in_seconds?: number;
}

/** `POST /v1/apps` (operator keys): the new app and its first key, an admin of that app only. */
export interface CreatedApp {
  object: 'app';
  id: string;
  name: string;
  created_at: string;
  api_key: { id: string; key: string; role: ApiKeyRole };
}
