import type { Readable } from 'node:stream';
import { request } from 'undici';
import type { EgressPolicy } from './address-policy.ts';
import { EgressError, toEgressError } from './egress-error.ts';
import { sharedGuardedAgents, type GuardedAgentPool } from './guarded-agent.ts';
import {
  DEFAULT_MAX_REDIRECTS,
  isRedirect,
  nextHop,
  parseHttpUrl,
  tooManyRedirects,
  type CarriedCredentials,
  type Hop,
} from './redirects.ts';

/**
 * One buffered HTTP call for a server-executed tool (an OpenAPI operation, an OAuth token
 * request): egress-checked at every hop, bounded in time and in bytes.
 */

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

export type SafeFetchBody = string | Uint8Array;

export interface SafeFetchInit {
  readonly method?: string;
  readonly headers?: ConstructorParameters<typeof Headers>[0];
  /** Kept in memory so a 307/308 redirect can send it again. */
  readonly body?: SafeFetchBody;
  /** The caller's own cancellation; its reason is rethrown as is. */
  readonly signal?: AbortSignal;
  /** The headers and query parameters holding the tool's credentials: never sent to another origin. */
  readonly credentials?: CarriedCredentials;
}

export interface SafeFetchOptions {
  readonly policy: EgressPolicy;
  /** One deadline for the whole call: every hop's connect, headers and body. */
  readonly timeoutMs?: number;
  /** Bytes of body kept; beyond it reading stops and `truncated` is set. */
  readonly maxResponseBytes?: number;
  readonly maxRedirects?: number;
  /** Extra trusted CAs for this call's client (PEM or base64 DER). */
  readonly ca?: readonly string[];
  readonly agents?: GuardedAgentPool;
}

export interface SafeFetchResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
  /** The server had more than `maxResponseBytes`; `body` is the first `maxResponseBytes` of it. */
  readonly truncated: boolean;
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly redirects: number;
}

export async function safeFetch(
  input: string | URL,
  init: SafeFetchInit,
  options: SafeFetchOptions,
): Promise<SafeFetchResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const dispatcher = (options.agents ?? sharedGuardedAgents).get(options.policy, { ca: options.ca ?? [] });

  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
  // Every failure path goes through here: the caller's abort wins, then our deadline, then the
  // network error itself.
  const fail = (error: unknown, url: URL): unknown => {
    if (init.signal?.aborted) return init.signal.reason;
    if (deadline.aborted) {
      return new EgressError(
        'timeout',
        `${url.href} did not answer completely within ${timeoutMs} ms (connect, headers and body); ` +
          "raise the tool's timeout if the API is legitimately slow.",
        { url: url.href, host: url.hostname, cause: error },
      );
    }
    return toEgressError(error, url);
  };

  let hop: Hop<SafeFetchBody> = {
    url: parseHttpUrl(input),
    method: (init.method ?? 'GET').toUpperCase(),
    headers: new Headers(init.headers),
    body: init.body,
  };
  for (let redirects = 0; ; redirects += 1) {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(hop.url, {
        dispatcher,
        method: hop.method,
        headers: Object.fromEntries(hop.headers),
        body: hop.body ?? null,
        signal,
      });
    } catch (error) {
      throw withRedirectContext(fail(error, hop.url), redirects, hop.url);
    }

    const location = headerValue(response.headers['location']);
    if (isRedirect(response.statusCode) && location !== undefined && location !== '') {
      // Read and drop a bounded redirect body so the connection can be reused.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      if (redirects >= maxRedirects) throw tooManyRedirects(hop.url, maxRedirects);
      hop = nextHop(hop, response.statusCode, location, init.credentials);
      continue;
    }

    let read: { body: Buffer; truncated: boolean };
    try {
      read = await readCapped(response.body, maxBytes);
    } catch (error) {
      throw fail(error, hop.url);
    }
    return {
      status: response.statusCode,
      headers: toHeaders(response.headers),
      body: read.body,
      truncated: read.truncated,
      url: hop.url.href,
      redirects,
    };
  }
}

/** Reads at most `maxBytes`; past that the stream is destroyed, which drops the connection. */
export async function readCapped(body: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = maxBytes - size;
    if (chunk.length > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      size += Math.max(room, 0);
      truncated = true;
      break; // leaving for-await destroys the stream: nothing more is read from the socket
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated && !body.destroyed) body.destroy();
  return { body: Buffer.concat(chunks, size), truncated };
}

function withRedirectContext(error: unknown, redirects: number, url: URL): unknown {
  if (redirects === 0 || !(error instanceof EgressError)) return error;
  return error.withContext(`After ${redirects} redirect(s), the request to ${url.href} failed`, url.href);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}
