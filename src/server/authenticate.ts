import type { IncomingHttpHeaders } from 'node:http';
import { BatonError } from '../domain/errors/baton-error.ts';
import type { Principal } from '../domain/principal.ts';
import { hashApiKey, type ApiKeyCache } from '../resources/index.ts';

/**
 * Reads `Authorization: Bearer <key>` or `x-api-key: <key>` and resolves it to its app. Takes only
 * the headers, so a WebSocket upgrade request (which never reaches Fastify) is checked the same way.
 * A revoked or expired key is refused here, on every request; a deleted app's keys are gone.
 */
export async function authenticate(keys: ApiKeyCache, request: { headers: IncomingHttpHeaders }): Promise<Principal> {
  const authorization = request.headers.authorization;
  const headerKey = request.headers['x-api-key'];
  let secret: string | undefined;
  if (typeof authorization === 'string' && authorization.length > 0) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) {
      throw new BatonError('invalid_authorization_header', 'The Authorization header must be "Bearer <api key>".');
    }
    secret = match[1];
  } else if (typeof headerKey === 'string' && headerKey.length > 0) {
    secret = headerKey;
  }
  if (!secret) {
    throw new BatonError('missing_api_key', 'Missing API key: send Authorization: Bearer <key> or x-api-key: <key>.');
  }
  const key = await keys.find(hashApiKey(secret));
  if (!key) {
    throw new BatonError(
      'invalid_api_key',
      'Invalid API key: check the key, or ask an app admin for one (POST /v1/api-keys).',
    );
  }
  if (key.revokedAt !== null) {
    throw new BatonError(
      'api_key_revoked',
      `API key ${key.id} (${key.prefix}…) was revoked at ${key.revokedAt}; use another key of the app.`,
    );
  }
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now()) {
    throw new BatonError(
      'api_key_expired',
      `API key ${key.id} (${key.prefix}…) expired at ${key.expiresAt}; use the key that replaced it, or ask an app admin for a new one.`,
    );
  }
  keys.recordUse(key);
  return { appId: key.appId, keyId: key.id, role: key.role, ...(key.toolScope ? { toolScope: key.toolScope } : {}) };
}
