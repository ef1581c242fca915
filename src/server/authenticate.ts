import type { IncomingHttpHeaders } from 'node:http';
import { BatonError } from '../domain/errors/baton-error.ts';
import type { Principal } from '../domain/principal.ts';
import { hashApiKey, type ApiKeyCache } from '../resources/index.ts';

/**
 * Reads `Authorization: Bearer <key>` or `x-api-key: <key>` and resolves it to its app. Takes only
 * the headers, so a WebSocket upgrade request (which never reaches Fastify) is checked the same way.
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
  if (!key || key.revokedAt !== null) {
    throw new BatonError(
      'invalid_api_key',
      'Invalid API key: check the key, or create one with POST /v1/api-keys using an admin key.',
    );
  }
  return { appId: key.appId, keyId: key.id, role: key.role };
}
