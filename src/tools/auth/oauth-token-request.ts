import { AuthError, describeEndpoint } from './auth-error.ts';
import { redactSecrets } from './credential-redaction.ts';
import type { TokenSender } from './token-sender.ts';

/**
 * One OAuth 2.0 client-credentials token request (RFC 6749 §4.4) and the parsing of its answer.
 * No caching here: see oauth-token-cache.ts.
 */

export interface ClientCredentialsRequest {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes?: readonly string[];
}

export interface IssuedToken {
  readonly accessToken: string;
  /** `expires_in` in seconds, when the server sent a usable one. */
  readonly expiresInSeconds: number | undefined;
}

/** Longest excerpt of an error body quoted in a message. */
export const ERROR_EXCERPT_CHARS = 300;

/**
 * Client authentication `client_secret_basic` (RFC 6749 §2.3.1): id and secret are each
 * form-urlencoded, then `id:secret` is base64-encoded. Basic rather than body parameters because
 * every server must support it, and because safeFetch drops the Authorization header on a
 * cross-origin redirect — a secret in the body would be re-posted to wherever a 307 points.
 */
export function basicCredentials(clientId: string, clientSecret: string): string {
  return Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`, 'utf8').toString('base64');
}

function formEncode(value: string): string {
  // URLSearchParams serialises with exactly the application/x-www-form-urlencoded rules.
  return new URLSearchParams({ v: value }).toString().slice(2);
}

export async function requestClientCredentialsToken(
  request: ClientCredentialsRequest,
  send: TokenSender,
  signal?: AbortSignal,
): Promise<IssuedToken> {
  const endpoint = describeEndpoint(request.tokenEndpoint);
  const basic = basicCredentials(request.clientId, request.clientSecret);
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const scopes = request.scopes ?? [];
  if (scopes.length > 0) form.set('scope', scopes.join(' '));

  let response: { status: number; body: string };
  try {
    response = await send(request.tokenEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basic}`,
      },
      body: form.toString(),
      signal,
    });
  } catch (error) {
    // The caller's own cancellation is not a token failure: let it through untouched.
    if (signal?.aborted) throw signal.reason;
    if (error instanceof AuthError) throw error;
    // The egress layer's message is actionable (it names egress.allow, the CA setting…) but may
    // quote the full URL: keep origin + path only.
    let reason = error instanceof Error ? error.message : String(error);
    const href = fullHref(request.tokenEndpoint);
    if (href !== undefined && href !== endpoint) reason = reason.split(href).join(endpoint);
    throw new AuthError(
      'token_request_failed',
      `Could not get an OAuth access token from ${endpoint} (oauthConfig.tokenEndpoint): ${reason}`,
      { cause: error },
    );
  }

  // Each in every form an error body may quote it (JSON-escaped, URL-encoded…): see secretForms.
  const secrets = [request.clientSecret, basic];
  if (response.status < 200 || response.status > 299) {
    throw new AuthError(
      'token_request_failed',
      `The token endpoint ${endpoint} refused the client-credentials request for client '${request.clientId}' ` +
        `with HTTP ${response.status}${describeErrorBody(response.body, secrets)}. ${hintFor(response.status)}`,
    );
  }
  return parseTokenResponse(response.body, endpoint);
}

/** `: invalid_client — Client authentication failed` from an RFC 6749 §5.2 body, or an excerpt. */
function describeErrorBody(body: string, secrets: readonly string[]): string {
  const json = parseJsonObject(body);
  let text: string;
  if (json && typeof json.error === 'string') {
    const description = typeof json.error_description === 'string' ? ` — ${json.error_description}` : '';
    text = `${json.error}${description}`;
  } else {
    // Not an OAuth error body (a proxy's HTML page, say): a short excerpt still helps. Redacted
    // before the tags go, which would cut a secret holding `<`.
    text = redactSecrets(body, secrets).replace(/<[^>]*>/g, ' ');
  }
  // Redacted before whitespace is collapsed, which would change a secret holding a run of spaces.
  text = redactSecrets(text, secrets).replace(/\s+/g, ' ').trim();
  if (text === '') return '';
  return `: ${text.length > ERROR_EXCERPT_CHARS ? `${text.slice(0, ERROR_EXCERPT_CHARS)}…` : text}`;
}

function hintFor(status: number): string {
  if (status === 400 || status === 401 || status === 403) {
    return 'Check oauthConfig.clientId, the secret named by oauthConfig.clientSecretVersion and oauthConfig.scopes.';
  }
  if (status === 404 || status === 405) return 'Check that oauthConfig.tokenEndpoint is the token endpoint URL.';
  if (status >= 300 && status < 400) return 'Set oauthConfig.tokenEndpoint to the final URL, not one that redirects.';
  return 'The authorization server may be down; the request is retried on the next tool call.';
}

function parseTokenResponse(body: string, endpoint: string): IssuedToken {
  const invalid = (what: string): AuthError =>
    new AuthError('token_response_invalid', `The token endpoint ${endpoint} answered 2xx but ${what}.`);
  // The body of a 2xx answer holds the token, so no message below quotes it; key names are safe.
  const json = parseJsonObject(body);
  if (!json)
    throw invalid('not with a JSON object (RFC 6749 §5.1); check that oauthConfig.tokenEndpoint is the token endpoint');
  const token = json.access_token;
  if (typeof token !== 'string' || token === '') {
    const keys = Object.keys(json).slice(0, 10).join(', ') || 'none';
    throw invalid(`its JSON has no access_token string (keys: ${keys})`);
  }
  if (!/^[\x21-\x7e]+$/.test(token))
    throw invalid('its access_token has characters that cannot be sent in an Authorization header');
  if (
    json.token_type !== undefined &&
    (typeof json.token_type !== 'string' || json.token_type.toLowerCase() !== 'bearer')
  ) {
    throw invalid(
      `with token_type ${JSON.stringify(json.token_type)}; Baton sends access tokens only as Bearer tokens`,
    );
  }
  return { accessToken: token, expiresInSeconds: parseExpiresIn(json.expires_in) };
}

/**
 * `expires_in` is a number of seconds; a few servers send it as a numeric string. Anything else
 * (absent, negative, garbage) is treated as absent: the token is probably fine, and the cache
 * falls back to a short default lifetime.
 */
function parseExpiresIn(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

function fullHref(url: string): string | undefined {
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
