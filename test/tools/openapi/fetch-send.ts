/**
 * A test-only `send` over the global fetch: the production one is the egress-guarded fetch, which
 * these tests do not exercise. Redirects are not followed, as the guarded one re-checks them.
 */
import type { SendFunction } from '../../../src/tools/openapi/openapi-types.ts';

export const fetchSend: SendFunction = async (request) => {
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: 'manual',
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: Buffer.from(await response.arrayBuffer()),
    truncated: false,
  };
};
