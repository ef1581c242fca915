import type { ApiKeyRecord } from '../../domain/records.ts';

/** An API key as the admin API shows it: never its secret, only the prefix people tell keys apart by. */
export function keyView(key: ApiKeyRecord): Record<string, unknown> {
  return {
    object: 'api_key',
    id: key.id,
    app_id: key.appId,
    name: key.name,
    prefix: key.prefix,
    role: key.role,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt,
    revoked_at: key.revokedAt,
    // A worker key's tools (docs/tool-workers.md); ordinary keys have none.
    ...(key.toolScope ? { tools: key.toolScope } : {}),
  };
}

/** A key just minted: its view plus the secret, shown this once. */
export function issuedKeyView(key: ApiKeyRecord, secret: string): Record<string, unknown> {
  return { ...keyView(key), key: secret };
}
