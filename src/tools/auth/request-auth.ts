import type { JsonObject, JsonValue } from '../../domain/records.ts';
import type { RequestAuth } from '../openapi/openapi-types.ts';
import { AuthError } from './auth-error.ts';
import { contextVariableName, contextVariableText, isHeaderSafe, requireHeaderSafe } from './context-variables.ts';
import type { ClientCredentialsRequest, OAuthTokenCache } from './oauth-token-cache.ts';
import type { TokenSender } from './token-sender.ts';

export { contextVariableName, resolveContextVariables } from './context-variables.ts';
export type { RequestAuth } from '../openapi/openapi-types.ts';

/**
 * Turns a toolset's CES `apiAuthentication` into the headers and query parameters of one call:
 * API key (from a secret), bearer token (from a session variable) or OAuth client-credentials
 * token (from the shared cache). The config was validated when stored, so only what can change
 * since — a secret, a session variable, the token endpoint — fails here, as an AuthError.
 */

export interface AuthDependencies {
  /** Resolves a secret resource name to its value; throws AuthError('secret_unavailable') or any Error. */
  readSecret(reference: string, field: string): Promise<string>;
  /** The session's variables, read by `$context.variables.NAME`. */
  readonly variables: Readonly<Record<string, JsonValue>>;
  readonly oauth: OAuthTokenCache;
  readonly send: TokenSender;
  readonly signal?: AbortSignal;
  /** Where `auth` sits, e.g. `toolset.openApiToolset.apiAuthentication`; prefixes every message. */
  readonly field: string;
}

export async function resolveRequestAuth(auth: JsonObject | undefined, deps: AuthDependencies): Promise<RequestAuth> {
  const result: RequestAuth = {};
  if (!auth) return result;
  const apiKey = member(auth, 'apiKeyConfig');
  if (apiKey) {
    const prefix = `${deps.field}.apiKeyConfig`;
    const keyName = text(apiKey, 'keyName', prefix);
    const reference = text(apiKey, 'apiKeySecretVersion', prefix);
    const secret = await readSecret(deps, reference, `${prefix}.apiKeySecretVersion`);
    if (apiKey.requestLocation === 'QUERY_STRING') {
      (result.query ??= {})[keyName] = secret;
    } else if (apiKey.requestLocation === 'HEADER') {
      requireSecretHeaderSafe(secret, reference, `${prefix}.apiKeySecretVersion`);
      (result.headers ??= {})[keyName] = secret;
    } else {
      throw notValidated(`${prefix}.requestLocation`, 'must be HEADER or QUERY_STRING');
    }
  }
  const bearer = member(auth, 'bearerTokenConfig');
  if (bearer) {
    const field = `${deps.field}.bearerTokenConfig.token`;
    const name = contextVariableName(text(bearer, 'token', `${deps.field}.bearerTokenConfig`));
    if (name === undefined) {
      // Not quoted: a literal here would be the very token that must not be stored.
      throw new AuthError(
        'missing_variable',
        `${field} must be a session variable reference of the form $context.variables.NAME.`,
      );
    }
    const token = contextVariableText(name, deps.variables, field);
    requireHeaderSafe(token, () => `${field} refers to session variable '${name}'`);
    (result.headers ??= {}).Authorization = `Bearer ${token}`;
  }
  const oauth = member(auth, 'oauthConfig');
  if (oauth) {
    const request = await clientCredentialsRequest(oauth, deps);
    const token = await deps.oauth.getToken(request, { send: deps.send, signal: deps.signal });
    (result.headers ??= {}).Authorization = `Bearer ${token}`;
  }
  return result;
}

/**
 * For a caller whose request came back 401: drops the OAuth token it sent (found in `sent`, the
 * RequestAuth it used) so the next resolveRequestAuth fetches a fresh one. Without `sent`, drops
 * whatever token is cached. False when there is nothing to drop (no oauthConfig, or another
 * caller already refreshed it).
 */
export async function invalidateRequestAuth(
  auth: JsonObject | undefined,
  deps: Pick<AuthDependencies, 'readSecret' | 'oauth' | 'field'>,
  sent?: RequestAuth,
): Promise<boolean> {
  const oauth = auth ? member(auth, 'oauthConfig') : undefined;
  if (!oauth) return false;
  const request = await clientCredentialsRequest(oauth, deps);
  const header = sent?.headers?.Authorization;
  const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
  return deps.oauth.invalidate(request, token);
}

async function clientCredentialsRequest(
  oauth: JsonObject,
  deps: Pick<AuthDependencies, 'readSecret' | 'field'>,
): Promise<ClientCredentialsRequest> {
  const prefix = `${deps.field}.oauthConfig`;
  if (oauth.oauthGrantType !== undefined && oauth.oauthGrantType !== 'CLIENT_CREDENTIAL') {
    throw notValidated(`${prefix}.oauthGrantType`, 'must be CLIENT_CREDENTIAL');
  }
  const clientId = text(oauth, 'clientId', prefix);
  const tokenEndpoint = text(oauth, 'tokenEndpoint', prefix);
  const reference = text(oauth, 'clientSecretVersion', prefix);
  const clientSecret = await readSecret(deps, reference, `${prefix}.clientSecretVersion`);
  const scopes = Array.isArray(oauth.scopes)
    ? oauth.scopes.filter((s): s is string => typeof s === 'string' && s !== '')
    : [];
  return { tokenEndpoint, clientId, clientSecret, scopes };
}

/** Reads a secret; any failure becomes 'secret_unavailable' naming the field and the resource. */
async function readSecret(
  deps: Pick<AuthDependencies, 'readSecret'>,
  reference: string,
  field: string,
): Promise<string> {
  let value: string;
  try {
    value = await deps.readSecret(reference, field);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new AuthError('secret_unavailable', `${field}: could not read secret '${reference}': ${reason}`, {
      cause: error,
    });
  }
  // A secret saved from `echo key > file` ends in a newline that no API expects.
  const trimmed = value.trim();
  if (trimmed === '') {
    throw new AuthError('secret_unavailable', `${field}: secret '${reference}' is empty; store the credential in it.`);
  }
  return trimmed;
}

function requireSecretHeaderSafe(secret: string, reference: string, field: string): void {
  if (isHeaderSafe(secret)) return;
  throw new AuthError(
    'secret_unavailable',
    `${field}: secret '${reference}' has control characters (such as a line break) or non-Latin-1 ` +
      `characters and cannot be sent in an HTTP header; store the bare credential.`,
  );
}

function member(object: JsonObject, key: string): JsonObject | undefined {
  const value = object[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

function text(object: JsonObject, key: string, prefix: string): string {
  const value = object[key];
  if (typeof value === 'string' && value !== '') return value;
  throw notValidated(`${prefix}.${key}`, 'is required');
}

/**
 * Config that validation should have refused. Not an AuthError: nothing the session can do
 * fixes it, only re-saving the toolset (which validates it) does.
 */
function notValidated(field: string, why: string): Error {
  return new Error(`${field} ${why}; update the toolset so its apiAuthentication is validated again.`);
}
