import { lookup } from 'node:dns/promises';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { checkAddress, classifyAddress, type EgressPolicy } from '../../tools/http/address-policy.ts';

/** How long a URL's host may take to resolve when an endpoint is saved. */
const LOOKUP_TIMEOUT_MS = 2_000;

/**
 * Checks a webhook URL as the egress guard of server tools does: http or https, and no loopback,
 * private, link-local or metadata address unless `egress.allow` lets it. A host name is resolved
 * now, to refuse one that points inside; one that does not resolve yet is accepted, since every
 * delivery's connection goes through the guard again (which also stops a name re-pointed later).
 */
export async function checkWebhookUrl(raw: string, policy: EgressPolicy, field = 'url'): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BatonError(
      'invalid_webhook_url',
      `${field} ${JSON.stringify(raw.slice(0, 200))} is not an absolute URL; give one such as https://hooks.example.com/baton.`,
      {
        param: field,
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new BatonError(
      'invalid_webhook_url',
      `${field} uses ${url.protocol.slice(0, -1)}; webhooks are sent over http or https only.`,
      {
        param: field,
      },
    );
  if (url.username !== '' || url.password !== '')
    throw new BatonError(
      'invalid_webhook_url',
      `${field} carries credentials; verify deliveries by their signature instead.`,
      {
        param: field,
      },
    );
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = classifyAddress(host).addressClass === 'invalid' ? await resolve(host) : [host];
  for (const address of addresses) {
    const check = checkAddress(address, policy, host);
    if (!check.ok)
      throw new BatonError(
        'webhook_url_not_allowed',
        `${field} ${url.origin} is refused: ${check.reason}. Baton does not send webhooks there unless egress.allow (BATON_EGRESS_ALLOW) lists it.`,
        { param: field, details: { address, address_class: check.addressClass } },
      );
  }
  return url.href;
}

async function resolve(host: string): Promise<string[]> {
  try {
    const found = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS).unref()),
    ]);
    return found.map((entry) => entry.address);
  } catch {
    return [];
  }
}
