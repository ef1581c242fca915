import { fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
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
 * A `fetch` for clients that stream, such as the MCP SDK's StreamableHTTPClientTransport (its
 * `fetch` option): the response body is handed over unread, so SSE arrives event by event.
 *
 * What still applies: the egress check on every connection (guarded agent), redirects followed by
 * hand with re-checks and credential stripping, and a deadline on getting the final response's
 * headers. The body has no deadline — an SSE stream may stay open and quiet for long; the caller's
 * `signal` ends it.
 */

export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;

export interface GuardedFetchOptions {
  /** Limit for connecting and receiving the final response's headers, redirects included. */
  readonly timeoutMs?: number;
  readonly maxRedirects?: number;
  /** Extra trusted CAs for this client only (PEM or base64 DER). */
  readonly ca?: readonly string[];
  /**
   * The headers and query parameters this client's requests carry credentials in (the toolset's
   * auth config): dropped on a cross-origin redirect, besides authorization and cookie.
   */
  readonly credentials?: CarriedCredentials;
  readonly agents?: GuardedAgentPool;
}

type FetchBody = NonNullable<RequestInit['body']>;

export function guardedFetch(policy: EgressPolicy, options: GuardedFetchOptions = {}): typeof fetch {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  // Resolved now so a bad allow entry or CA certificate fails when the client is built.
  const dispatcher = (options.agents ?? sharedGuardedAgents).get(policy, { ca: options.ca ?? [] });

  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const request = typeof input === 'string' || input instanceof URL ? undefined : input;
    let body: FetchBody | undefined = init.body ?? undefined;
    if (body === undefined && request?.body) body = await request.arrayBuffer();
    let hop: Hop<FetchBody> = {
      url: parseHttpUrl(request ? request.url : (input as string | URL)),
      method: (init.method ?? request?.method ?? 'GET').toUpperCase(),
      headers: new Headers(init.headers ?? request?.headers),
      body,
    };
    const redirectMode = init.redirect ?? request?.redirect ?? 'follow';
    const callerSignal = init.signal ?? request?.signal ?? undefined;

    const timer = new AbortController();
    const timeout = setTimeout(() => {
      timer.abort(
        new EgressError(
          'timeout',
          `No response headers from ${hop.url.href} within ${timeoutMs} ms (connect and headers); ` +
            "raise the toolset's timeout if the server is legitimately slow.",
          { url: hop.url.href, host: hop.url.hostname },
        ),
      );
    }, timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timer.signal]) : timer.signal;

    try {
      for (let redirects = 0; ; redirects += 1) {
        let response: Awaited<ReturnType<typeof undiciFetch>>;
        try {
          response = await undiciFetch(hop.url, {
            dispatcher,
            method: hop.method,
            headers: [...hop.headers],
            body: (hop.body ?? null) as UndiciRequestInit['body'],
            signal,
            redirect: 'manual',
            ...(isStream(hop.body) ? { duplex: 'half' as const } : {}),
          });
        } catch (error) {
          if (callerSignal?.aborted) throw callerSignal.reason;
          const failure = timer.signal.aborted ? (timer.signal.reason as EgressError) : toEgressError(error, hop.url);
          throw redirects === 0
            ? failure
            : failure.withContext(`After ${redirects} redirect(s), the request to ${hop.url.href} failed`);
        }

        const location = response.headers.get('location');
        const follow =
          redirectMode !== 'manual' &&
          isRedirect(response.status) &&
          location !== null &&
          location !== '' &&
          // A streamed body cannot be sent twice; the caller gets the 307/308 itself.
          !(isStream(hop.body) && (response.status === 307 || response.status === 308));
        if (!follow || location === null) return response as unknown as Response;

        await response.body?.cancel().catch(() => undefined);
        if (redirectMode === 'error') {
          throw new TypeError(`fetch failed: ${hop.url.href} redirected and the redirect mode is "error"`);
        }
        if (redirects >= maxRedirects) throw tooManyRedirects(hop.url, maxRedirects);
        hop = nextHop(hop, response.status, location, options.credentials);
      }
    } finally {
      // Headers are in (or the call failed): from here on only the caller's signal governs the body.
      clearTimeout(timeout);
    }
  };
  return guarded as typeof fetch;
}

function isStream(body: FetchBody | undefined): boolean {
  return body instanceof ReadableStream;
}
