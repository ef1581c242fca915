/**
 * The one error type of tool authentication. Its message is meant for the person who configured
 * the toolset or runs the session (it ends up in the tool's error result), so it names the config
 * field, the session variable, the secret resource or the token endpoint involved — and never a
 * credential: no secret value, no API key, no client secret, no token.
 */

export type AuthErrorCode =
  /** A `$context.variables.NAME` reference the session did not fill (or filled with an unusable value). */
  | 'missing_variable'
  /** A secret resource could not be read, or its value cannot be sent. */
  | 'secret_unavailable'
  /** The token endpoint could not be reached or answered with an error status. */
  | 'token_request_failed'
  /** The token endpoint answered 2xx but not with a usable access token. */
  | 'token_response_invalid';

export class AuthError extends Error {
  override readonly name = 'AuthError';
  readonly code: AuthErrorCode;

  constructor(code: AuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/**
 * A URL as messages may show it: origin and path only. The query string and any user-info are
 * left out because operators sometimes put credentials there.
 */
export function describeEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'the token endpoint (not a valid URL)';
  }
}

/**
 * Replaces every occurrence of the given credentials in text taken from a remote server (an
 * error body might echo what it received). Short values are skipped: redacting "a" would shred
 * the text and a one-letter credential is not worth hiding.
 */
export function redact(text: string, credentials: readonly string[]): string {
  let result = text;
  for (const credential of credentials) {
    if (credential.length < 4) continue;
    result = result.split(credential).join('[redacted]');
  }
  return result;
}
