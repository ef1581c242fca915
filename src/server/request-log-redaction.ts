import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import { isCredentialParameter, REDACTED } from './credential-names.ts';
import { LogSecretScrubber } from './log-secret-scrubbing.ts';

/**
 * The request log without credentials. Fastify logs every request's URL, and clients do put keys
 * in URLs (`?api_key=`, `?access_token=`, `https://user:pass@…` in an absolute-form request
 * line); a log line is kept longer and read by more people than the request was. The values of
 * such query parameters and the user-info are written as `[REDACTED]`; the rest of the URL is
 * logged as it arrived, byte for byte, so a line still matches the access log of a proxy.
 */

export {
  CREDENTIAL_QUERY_PARAMETERS,
  CREDENTIAL_SUFFIXES,
  isCredentialParameter,
  REDACTED,
} from './credential-names.ts';

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

/** What the log may never show besides what the redaction finds by name and shape. */
export interface LogRedactionOptions {
  /** Values this server knows are secret: provider keys, the admin key, the secrets key (see `log-secrets.ts`). */
  knownSecrets?: readonly string[];
}

/**
 * Fastify's `logger` option with credentials kept out of every line (`false` stays off): the
 * redacting `req` serializer, an `err` serializer and a hook over every call's message and
 * details (log-secret-scrubbing.ts), on the server's logger and every request's child alike.
 */
export function withRequestLogRedaction(
  logger: FastifyServerOptions['logger'],
  options: LogRedactionOptions = {},
): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  const base = logger === true ? {} : logger;
  const scrubber = new LogSecretScrubber(options.knownSecrets);
  return {
    ...base,
    serializers: { ...base.serializers, req: serializeRequest, err: (error: unknown) => scrubber.error(error) },
    hooks: {
      ...base.hooks,
      logMethod(args, method) {
        method.apply(this, scrubbedArguments(args, scrubber) as Parameters<typeof method>);
      },
    },
  };
}

/** The keys whose values have serializers of their own (a request, a reply, an error). */
const SERIALIZED_KEYS: ReadonlySet<string> = new Set(['req', 'res', 'err']);

/** A log call's arguments (`(details?, message?, ...values)`) with credentials replaced. */
function scrubbedArguments(args: readonly unknown[], scrubber: LogSecretScrubber): unknown[] {
  const [first, ...rest] = args;
  // `log.error(error)`: pino would take the message from the error unscrubbed.
  if (first instanceof Error) {
    const message = typeof rest[0] === 'string' ? rest[0] : first.message;
    return [{ err: first }, scrubber.text(message), ...rest.slice(typeof rest[0] === 'string' ? 1 : 0)];
  }
  const details =
    typeof first === 'object' && first !== null && !Array.isArray(first)
      ? Object.fromEntries(
          Object.entries(first).map(([key, value]) => [
            key,
            SERIALIZED_KEYS.has(key) ? value : scrubber.field(key, value),
          ]),
        )
      : typeof first === 'string'
        ? scrubber.text(first)
        : first;
  return [details, ...rest.map((value) => (typeof value === 'string' ? scrubber.text(value) : scrubber.value(value)))];
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name; // a malformed escape is logged as it came; it names nothing we know
  }
}
