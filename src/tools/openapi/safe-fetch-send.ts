import type { EgressPolicy } from '../http/address-policy.ts';
import { safeFetch } from '../http/safe-fetch.ts';
import type { SendFunction } from './openapi-types.ts';

export interface SafeSendOptions {
  policy: EgressPolicy;
  /** Extra CAs trusted for this toolset only (`tlsConfig.caCerts`). */
  ca?: readonly string[];
  timeoutMs: number;
  maxResponseBytes: number;
  signal: AbortSignal;
}

/**
 * The production `send` of OpenAPI tools: the egress-guarded fetch (every hop's address
 * checked, redirects re-checked, time and size bounded); `truncated` lets the response mapper
 * add its marker.
 */
export function safeFetchSend(options: SafeSendOptions): SendFunction {
  return async (request) => {
    const response = await safeFetch(
      request.url,
      {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.credentials ? { credentials: request.credentials } : {}),
        signal: options.signal,
      },
      {
        policy: options.policy,
        timeoutMs: options.timeoutMs,
        maxResponseBytes: options.maxResponseBytes,
        ...(options.ca?.length ? { ca: options.ca } : {}),
      },
    );
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: response.body,
      truncated: response.truncated,
    };
  };
}
