import type { EgressPolicy } from '../http/address-policy.ts';
import type { GuardedAgentPool } from '../http/guarded-agent.ts';
import { safeFetch } from '../http/safe-fetch.ts';
import { AuthError, describeEndpoint } from './auth-error.ts';

/**
 * How a token request reaches the network, injected so the OAuth cache can be tested without
 * one. Production passes {@link safeFetchTokenSender}: the token endpoint is a URL from toolset
 * config, so it gets the same egress guard as the API calls themselves.
 */
export interface TokenSendInit {
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  signal?: AbortSignal;
}

export interface TokenSendResult {
  status: number;
  body: string;
}

export type TokenSender = (url: string, init: TokenSendInit) => Promise<TokenSendResult>;

/** A token response is a few hundred bytes of JSON; anything near this is not one. */
export const TOKEN_RESPONSE_MAX_BYTES = 64 * 1024;
/** Token endpoints answer fast or not at all; a tool call should not wait 30 s to learn which. */
export const TOKEN_REQUEST_TIMEOUT_MS = 10_000;

export interface SafeFetchTokenSenderOptions {
  readonly policy: EgressPolicy;
  /** Extra trusted CAs (the toolset's tlsConfig.caCerts), PEM or base64 DER. */
  readonly ca?: readonly string[];
  readonly timeoutMs?: number;
  /** Tests pass their own pool (fake DNS, closable); production uses the shared one. */
  readonly agents?: GuardedAgentPool;
}

export function safeFetchTokenSender(options: SafeFetchTokenSenderOptions): TokenSender {
  return async (url, init) => {
    const response = await safeFetch(
      url,
      { method: init.method, headers: init.headers, body: init.body, signal: init.signal },
      {
        policy: options.policy,
        ca: options.ca,
        timeoutMs: options.timeoutMs ?? TOKEN_REQUEST_TIMEOUT_MS,
        maxResponseBytes: TOKEN_RESPONSE_MAX_BYTES,
        agents: options.agents,
      },
    );
    // A cut-off body would only fail later as "not JSON"; say what actually happened. The
    // body is not quoted: a 2xx body is where the token is.
    if (response.truncated && response.status >= 200 && response.status < 300) {
      throw new AuthError(
        'token_response_invalid',
        `The token endpoint ${describeEndpoint(url)} answered with more than ${TOKEN_RESPONSE_MAX_BYTES} bytes; ` +
          'an OAuth token response is a small JSON object, so check that tokenEndpoint points at the token endpoint.',
      );
    }
    return { status: response.status, body: response.body.toString('utf8') };
  };
}
