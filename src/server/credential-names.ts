/**
 * Names whose values are credentials, in URLs (query parameters) and in logged objects (fields):
 * what the log redaction (request-log-redaction.ts, log-secret-scrubbing.ts) replaces by name.
 */

export const REDACTED = '[REDACTED]';

/**
 * Query parameter names (compared in lower case, `-` read as `_`) whose values are credentials.
 * Names ending in one of {@link CREDENTIAL_SUFFIXES} count too (`stripe_secret`, `x_api_key`).
 */
export const CREDENTIAL_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'api_key',
  'apikey',
  'key',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth',
  'authorization',
  'bearer',
  'client_secret',
  'secret',
  'password',
  'passwd',
  'pwd',
  'signature',
  'sig',
  'session',
  'sessionid',
  'credential',
  'credentials',
]);

export const CREDENTIAL_SUFFIXES: readonly string[] = ['_key', '_token', '_secret', '_password'];

export function isCredentialParameter(name: string): boolean {
  const normalized = name.toLowerCase().replaceAll('-', '_');
  return (
    CREDENTIAL_QUERY_PARAMETERS.has(normalized) || CREDENTIAL_SUFFIXES.some((suffix) => normalized.endsWith(suffix))
  );
}
