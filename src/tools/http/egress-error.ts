import { EGRESS_ALLOW_CONFIG_KEY, suggestedAllowEntry } from './address-policy.ts';

export type EgressErrorCode =
  'blocked_address' | 'timeout' | 'too_many_redirects' | 'invalid_url' | 'connection_failed' | 'tls_error';

export interface EgressErrorDetails {
  /** The URL being fetched when the error happened (after redirects). */
  readonly url?: string;
  readonly host?: string;
  /** The IP address refused or that failed, when known. */
  readonly address?: string;
  readonly cause?: unknown;
}

/**
 * Every failure of an outbound tool call. The message is meant for the person who configured
 * the tool (it ends up in the tool's error result): it names the host or address, the limit hit
 * and the setting that changes it. It never contains request headers or bodies.
 */
export class EgressError extends Error {
  readonly code: EgressErrorCode;
  readonly url: string | undefined;
  readonly host: string | undefined;
  readonly address: string | undefined;

  constructor(code: EgressErrorCode, message: string, details: EgressErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'EgressError';
    this.code = code;
    this.url = details.url;
    this.host = details.host;
    this.address = details.address;
  }

  /** The same error with context prepended (e.g. which redirect led here). */
  withContext(prefix: string, url?: string): EgressError {
    return new EgressError(this.code, `${prefix}: ${this.message}`, {
      url: url ?? this.url,
      host: this.host,
      address: this.address,
      cause: this.cause,
    });
  }
}

/** The connection to `address` (which `host` resolved to) is refused by the egress policy. */
export function blockedAddressError(host: string, address: string, reason: string): EgressError {
  const named = host === address ? address : `${host} (${address})`;
  const allowByName = host === address ? '' : ` or "${host}"`;
  return new EgressError(
    'blocked_address',
    `Refused to connect to ${named}: ${reason}. Outbound calls to non-public addresses are blocked; ` +
      `if this destination is intended, add "${suggestedAllowEntry(address)}"${allowByName} to ` +
      `${EGRESS_ALLOW_CONFIG_KEY} in the Baton config.`,
    { host, address },
  );
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  library?: unknown;
}

/** The error and its `cause` chain: fetch hides the socket error behind "fetch failed". */
function* causes(error: unknown): Generator<ErrorLike> {
  let current = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth += 1) {
    yield current as ErrorLike;
    current = (current as ErrorLike).cause;
  }
}

/**
 * Maps what undici, net, tls or dns threw to an {@link EgressError}. An EgressError raised inside
 * the connector (a blocked address) is returned as it is, found through the cause chain.
 */
export function toEgressError(error: unknown, url: URL): EgressError {
  const chain = [...causes(error)];
  const existing = chain.find((e): e is EgressError => e instanceof EgressError);
  if (existing) return existing;

  const host = url.hostname;
  const target = `${host}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  const details = { url: url.href, host, cause: error };
  for (const e of chain) {
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : String(e.code);
    if (TLS_CODE.test(code) || e.library === 'SSL routines') {
      return new EgressError(
        'tls_error',
        `TLS with ${target} failed (${code || message}): ${message}. If the server uses a private or ` +
          "self-signed certificate authority, add its certificate to the toolset's tlsConfig.caCerts.",
        details,
      );
    }
    if (DNS_CODES.has(code)) {
      return new EgressError(
        'connection_failed',
        `Could not resolve host ${host} (${code}); check the server URL of the tool or toolset.`,
        details,
      );
    }
    if (TIMEOUT_CODES.has(code)) {
      return new EgressError('timeout', `Connection to ${target} timed out (${code}).`, details);
    }
    if (code.startsWith('E') || code.startsWith('UND_ERR_')) {
      return new EgressError(
        'connection_failed',
        `Could not reach ${target} (${code}): ${message}. Check that the server is up and the URL is right.`,
        details,
      );
    }
  }
  const first = chain[0];
  const message = first && typeof first.message === 'string' ? first.message : String(error);
  return new EgressError('connection_failed', `Request to ${target} failed: ${message}`, details);
}
