import { EgressError } from './egress-error.ts';

/**
 * Redirects are followed by hand, never by undici, so that each hop gets a fresh URL check, its
 * connection goes through the guarded connector, the hop count is bounded, and credentials do
 * not travel to another origin.
 */

export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Always removed when a redirect leaves the origin, whatever the caller adds. */
export const ALWAYS_SENSITIVE_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'api-key',
  'x-auth-token',
];

/**
 * What a request carries from a tool's auth config, by name: the headers and query parameters
 * that hold a credential. Whatever their names (`X-Custom-Key`, `api_key`…), they are dropped
 * when a redirect leaves the origin, like the always-sensitive headers above.
 */
export interface CarriedCredentials {
  readonly headers?: readonly string[];
  readonly query?: readonly string[];
}

/** Headers describing the request body; meaningless once a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

export interface Hop<Body> {
  readonly url: URL;
  readonly method: string;
  readonly headers: Headers;
  readonly body: Body | undefined;
}

/** Parses a URL a tool is about to call; only http and https leave the server. */
export function parseHttpUrl(input: string | URL, context = 'URL'): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new EgressError('invalid_url', `${context} ${JSON.stringify(String(input))} is not a valid absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressError(
      'invalid_url',
      `${context} ${url.href} uses ${url.protocol.slice(0, -1)}; only http and https are allowed.`,
      { url: url.href },
    );
  }
  return url;
}

export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

export function tooManyRedirects(url: URL, maxRedirects: number): EgressError {
  return new EgressError(
    'too_many_redirects',
    `Gave up after ${maxRedirects} redirects, the last one to ${url.href}; the server may be ` +
      'redirecting in a loop (the limit is the maxRedirects option of the call).',
    { url: url.href, host: url.hostname },
  );
}

/**
 * The request to send after a redirect response, per the Fetch standard's rules: 303 (and 301/302
 * after a POST) become a body-less GET; 307/308 repeat the method and body. Leaving the origin
 * drops the authorization and cookie headers and every credential the request carries, header or
 * query parameter (a server that moves an API elsewhere often echoes the query into `Location`).
 */
export function nextHop<Body>(
  current: Hop<Body>,
  status: number,
  location: string,
  credentials: CarriedCredentials = {},
): Hop<Body> {
  let url: URL;
  try {
    url = new URL(location, current.url);
  } catch {
    throw new EgressError(
      'invalid_url',
      `${current.url.href} redirected to ${JSON.stringify(location)}, which is not a valid URL.`,
      { url: current.url.href },
    );
  }
  url = parseHttpUrl(url, `Redirect from ${current.url.href} to`);

  const headers = new Headers(current.headers);
  let { method, body } = current;
  if (
    (status === 303 && method !== 'GET' && method !== 'HEAD') ||
    ((status === 301 || status === 302) && method === 'POST')
  ) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) headers.delete(name);
  }
  if (url.origin !== current.url.origin) {
    for (const name of [...ALWAYS_SENSITIVE_HEADERS, ...(credentials.headers ?? [])]) headers.delete(name);
    headers.delete('host');
    // Only touched when present: deleting re-serialises the whole query, which is best left as sent.
    for (const name of credentials.query ?? []) if (url.searchParams.has(name)) url.searchParams.delete(name);
  }
  return { url, method, headers, body };
}
