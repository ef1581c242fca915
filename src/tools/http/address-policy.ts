import ipaddr from 'ipaddr.js';
import { classifyAddress, describeAddress, embeddedIPv4, type AddressClass } from './address-class.ts';

export { classifyAddress, describeAddress, type AddressClass } from './address-class.ts';

/**
 * Which outbound destinations server-executed tools may reach (config `egress.allow`).
 *
 * Every public address is allowed; every other class (loopback, private, link-local, metadata,
 * CGNAT, unspecified, multicast, reserved…) is refused unless an `allow` entry covers it:
 * - a CIDR or a single address: `127.0.0.0/8`, `::1/128`, `10.1.2.3`;
 * - a host name: `localhost`, or `*.internal.example` for any name under that domain (not the
 *   domain itself). An allowed name may resolve to anything: the operator vouched for the name.
 */
export interface EgressPolicy {
  readonly allow: readonly string[];
}

/** Refuse every non-public destination. */
export const DEFAULT_EGRESS_POLICY: EgressPolicy = Object.freeze({ allow: Object.freeze([]) });

/** The config key operators change; error messages name it so the fix is one search away. */
export const EGRESS_ALLOW_CONFIG_KEY = 'egress.allow';

export type AddressCheck =
  | { readonly ok: true; readonly addressClass: AddressClass }
  | { readonly ok: false; readonly reason: string; readonly addressClass: AddressClass };

/** An `egress.allow` entry that is neither a CIDR, an address nor a host name pattern. */
export class EgressPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressPolicyError';
  }
}

export interface CompiledEgressPolicy {
  readonly ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  readonly hosts: ReadonlySet<string>;
  /** `*.internal.example` is stored as `.internal.example`. */
  readonly suffixes: readonly string[];
}

const HOSTNAME_PATTERN =
  /^(?:\*\.)?(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

// Policies come from config and are checked on every connection: compile each object once.
const compiled = new WeakMap<EgressPolicy, CompiledEgressPolicy>();

/** Parses the allow list; throws {@link EgressPolicyError} naming the first bad entry. */
export function compileEgressPolicy(policy: EgressPolicy): CompiledEgressPolicy {
  const cached = compiled.get(policy);
  if (cached) return cached;
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  const hosts = new Set<string>();
  const suffixes: string[] = [];
  policy.allow.forEach((raw, index) => {
    const entry = raw.trim().toLowerCase();
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw badEntry(raw, index, 'not a valid CIDR');
      ranges.push(ipaddr.parseCIDR(entry));
    } else if (classifyAddress(entry).addressClass !== 'invalid') {
      const address = ipaddr.parse(entry.replace(/^\[|\]$/g, ''));
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      const name = entry.replace(/\.$/, '');
      if (!HOSTNAME_PATTERN.test(name)) throw badEntry(raw, index, 'not a CIDR, an IP address or a host name');
      if (name.startsWith('*.')) suffixes.push(name.slice(1));
      else hosts.add(name);
    }
  });
  const result: CompiledEgressPolicy = { ranges, hosts, suffixes };
  compiled.set(policy, result);
  return result;
}

function badEntry(raw: string, index: number, why: string): EgressPolicyError {
  return new EgressPolicyError(
    `${EGRESS_ALLOW_CONFIG_KEY}[${index}] ${JSON.stringify(raw)} is ${why}; ` +
      'use a CIDR like "10.0.0.0/8" or "::1/128", an address, or a host name like "localhost" or "*.internal.example"',
  );
}

/** True when the operator allowed this host name (exactly, or by a `*.` pattern). */
export function isHostnameAllowed(hostname: string, policy: EgressPolicy): boolean {
  const { hosts, suffixes } = compileEgressPolicy(policy);
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return hosts.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
}

/**
 * May a connection go to `ip`? Public addresses always may; others only when an allow entry
 * covers the address (or the IPv4 address it embeds), or when `hostname` — the name that
 * resolved to `ip` — is allowed.
 */
export function checkAddress(ip: string, policy: EgressPolicy, hostname?: string): AddressCheck {
  const classification = classifyAddress(ip);
  const { addressClass } = classification;
  if (addressClass === 'invalid') return { ok: false, reason: describeAddress(ip, classification), addressClass };
  if (addressClass === 'public') return { ok: true, addressClass };
  if (hostname !== undefined && isHostnameAllowed(hostname, policy)) return { ok: true, addressClass };
  if (isInAllowedRange(ip, policy)) return { ok: true, addressClass };
  return { ok: false, reason: describeAddress(ip, classification), addressClass };
}

function isInAllowedRange(ip: string, policy: EgressPolicy): boolean {
  const { ranges } = compileEgressPolicy(policy);
  if (ranges.length === 0) return false;
  const address = ipaddr.parse(ip.replace(/^\[|\]$/g, ''));
  const candidates: Array<ipaddr.IPv4 | ipaddr.IPv6> = [address];
  // Allowing 127.0.0.0/8 also allows ::ffff:127.0.0.1: both reach the same host.
  if (address.kind() === 'ipv6') {
    const embedded = embeddedIPv4(address as ipaddr.IPv6);
    if (embedded) candidates.push(embedded.ipv4);
  }
  return candidates.some((candidate) =>
    ranges.some(([base, bits]) => base.kind() === candidate.kind() && candidate.match(base, bits)),
  );
}

/** The allow entry that would admit exactly this address, for error messages. */
export function suggestedAllowEntry(ip: string): string {
  // For ::ffff:127.0.0.1 suggest 127.0.0.1/32: it covers both forms (see isInAllowedRange).
  const embedded = classifyAddress(ip).embeddedIPv4;
  if (embedded) return `${embedded}/32`;
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  return bare.includes(':') ? `${bare}/128` : `${bare}/32`;
}
