import type { JsonObject } from '../../domain/records.ts';
import type { OAuthTokenCache } from '../../tools/auth/oauth-token-cache.ts';
import { resolveRequestAuth, type RequestAuth } from '../../tools/auth/request-auth.ts';
import { safeFetchTokenSender } from '../../tools/auth/token-sender.ts';
import { asObject } from '../json-objects.ts';
import { caCertsOf, type CallEnvironment } from '../tools/call-environment.ts';

/**
 * The request credentials of a source's `apiAuthentication` (an OpenAPI source, an MCP server),
 * resolved for one call: secrets read, session variables substituted, OAuth tokens fetched
 * through the egress guard with the source's CAs. `field` names the settings in errors.
 */
export async function requestCredentials(
  source: JsonObject,
  environment: CallEnvironment,
  oauth: OAuthTokenCache,
  field: string,
): Promise<RequestAuth> {
  const ca = caCertsOf(source.tlsConfig);
  return resolveRequestAuth(asObject(source.apiAuthentication), {
    readSecret: (reference) => environment.readSecret(reference),
    variables: environment.variables,
    oauth,
    send: safeFetchTokenSender({ policy: environment.policy, ...(ca.length > 0 ? { ca } : {}) }),
    signal: environment.signal,
    field,
  });
}
