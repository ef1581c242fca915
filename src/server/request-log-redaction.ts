import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/**
 * The request log without credentials. Fastify logs every request's URL, and clients do put keys
 * in URLs (`?api_key=`, `?access_token=`, `https://user:pass@…` in an absolute-form request
 * line); a log line is kept longer and read by more people than the request was. The values of
 * such query parameters and the user-info are written as `[REDACTED]`; the rest of the URL is
 * logged as it arrived, byte for byte, so a line still matches the access log of a proxy.
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

/** `url` (a request target: a path with a query, or an absolute URL) with its credentials replaced. */
export function redactRequestUrl(url: string): string {
  // Absolute form (`GET http://user:pass@host/ HTTP/1.1`): the user-info goes whole.
  const target = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, `$1${REDACTED}@`);
  const queryStart = target.indexOf('?');
  if (queryStart === -1) return target;
  const query = target
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      return isCredentialParameter(decodeName(name)) && equals !== -1 ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${target.slice(0, queryStart)}?${query}`;
}

/** The same fields as Fastify's own `req` serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactRequestUrl(request.url),
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket.remotePort,
  };
}

/** Fastify's `logger` option with the redacting `req` serializer; `false` stays off. */
export function withRequestLogRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  const options = logger === true ? {} : logger;
  return { ...options, serializers: { ...options.serializers, req: serializeRequest } };
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name; // a malformed escape is logged as it came; it names nothing we know
  }
}
