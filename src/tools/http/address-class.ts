import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What kind of destination an IP address is, for the egress guard.
 *
 * Only `public` is reachable by default; every other class is refused unless the operator allows
 * it (see address-policy.ts). Unknown or new special-purpose ranges fall into `reserved`, so the
 * classification fails closed.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cloud_metadata'
  | 'carrier_grade_nat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  /** Not an IP address at all (refused: we never guess). */
  | 'invalid';

/** How an IPv6 address carries an IPv4 one; the IPv4 address decides where packets really go. */
export type IPv4Embedding = 'ipv4_mapped' | 'ipv4_translated' | 'nat64' | '6to4' | 'teredo';

export interface AddressClassification {
  readonly addressClass: AddressClass;
  /** The IPv4 address that decided the class, when an IPv6 address embeds one. */
  readonly embeddedIPv4?: string;
  readonly embedding?: IPv4Embedding;
}

/**
 * Instance metadata services hand out cloud credentials; they get their own class so an error can
 * say so. 169.254.169.254 (AWS, GCP, Azure, OpenStack…), fd00:ec2::254 (AWS over IPv6),
 * 100.100.100.200 (Alibaba Cloud), 168.63.129.16 (Azure wire server: a public-looking address
 * that only answers inside Azure), 192.0.0.192 (Oracle Cloud).
 */
const METADATA_IPV4 = new Set(['169.254.169.254', '100.100.100.200', '168.63.129.16', '192.0.0.192']);
const METADATA_IPV6 = [ipaddr.IPv6.parse('fd00:ec2::254')];

/** IPv6 global unicast; anything outside it that ipaddr calls "unicast" is unassigned space. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** The well-known NAT64 prefix, whose last 32 bits are the IPv4 destination (RFC 6052). */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Classifies an IP address given as text (`127.0.0.1`, `::1`, `[::1]`, `fe80::1%eth0`).
 *
 * Only canonical notations are accepted (what `net.isIP` accepts): legacy forms such as `127.1`
 * or `0x7f000001` are `invalid`, never guessed; URL hosts are already normalised by WHATWG URL.
 */
export function classifyAddress(text: string): AddressClassification {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (net.isIP(bare) === 0) return { addressClass: 'invalid' };
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(bare);
  } catch {
    return { addressClass: 'invalid' };
  }
  return address.kind() === 'ipv4'
    ? { addressClass: classifyIPv4(address as ipaddr.IPv4) }
    : classifyIPv6(address as ipaddr.IPv6);
}

/** The IPv4 address an IPv6 address tunnels or translates to, if any. */
export function embeddedIPv4(address: ipaddr.IPv6): { ipv4: ipaddr.IPv4; embedding: IPv4Embedding } | null {
  const p = address.parts;
  const fromParts = (high: number, low: number): ipaddr.IPv4 =>
    new ipaddr.IPv4([(high >> 8) & 0xff, high & 0xff, (low >> 8) & 0xff, low & 0xff]);
  const range: string = address.range();
  switch (range) {
    case 'ipv4Mapped':
      return { ipv4: address.toIPv4Address(), embedding: 'ipv4_mapped' };
    case 'rfc6145': // ::ffff:0:a.b.c.d, IPv4-translated (SIIT)
      return { ipv4: fromParts(p[6] ?? 0, p[7] ?? 0), embedding: 'ipv4_translated' };
    case 'rfc6052':
      // Only the well-known /96 has a fixed place for the IPv4 address; the local-use
      // 64:ff9b:1::/48 prefix depends on the operator's translator, so it stays `reserved`.
      return address.match(NAT64_WELL_KNOWN) ? { ipv4: fromParts(p[6] ?? 0, p[7] ?? 0), embedding: 'nat64' } : null;
    case '6to4': // 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD
      return { ipv4: fromParts(p[1] ?? 0, p[2] ?? 0), embedding: '6to4' };
    case 'teredo': // the client's IPv4 address is stored inverted in the last 32 bits
      return { ipv4: fromParts(~(p[6] ?? 0) & 0xffff, ~(p[7] ?? 0) & 0xffff), embedding: 'teredo' };
    default:
      return null;
  }
}

function classifyIPv4(address: ipaddr.IPv4): AddressClass {
  if (METADATA_IPV4.has(address.toString())) return 'cloud_metadata';
  const range: string = address.range();
  switch (range) {
    case 'unicast':
    case 'as112': // AS112 DNS sinks and AMT relays are globally reachable (IANA registry)
    case 'amt':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    case 'carrierGradeNat':
      return 'carrier_grade_nat';
    case 'unspecified': // 0.0.0.0/8: on Linux, connecting to 0.0.0.0 reaches this very host
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    case 'broadcast':
      return 'broadcast';
    default: // reserved, benchmarking, documentation, and ranges a newer ipaddr.js may add
      return 'reserved';
  }
}

function classifyIPv6(address: ipaddr.IPv6): AddressClassification {
  if (METADATA_IPV6.some((m) => address.match(m, 128))) return { addressClass: 'cloud_metadata' };
  const embedded = embeddedIPv4(address);
  if (embedded) {
    // The packets end up at the IPv4 address, so it alone decides (::ffff:127.0.0.1 is loopback).
    return {
      addressClass: classifyIPv4(embedded.ipv4),
      embeddedIPv4: embedded.ipv4.toString(),
      embedding: embedded.embedding,
    };
  }
  const range: string = address.range();
  switch (range) {
    case 'unicast':
      // Outside 2000::/3 ipaddr still says "unicast" (e.g. IPv4-compatible ::7f00:1): unassigned.
      return { addressClass: address.match(GLOBAL_UNICAST) ? 'public' : 'reserved' };
    case 'amt':
    case 'as112v6':
      return { addressClass: 'public' };
    case 'loopback':
      return { addressClass: 'loopback' };
    case 'uniqueLocal': // fc00::/7, the IPv6 counterpart of RFC 1918
    case 'deprecatedSiteLocal':
      return { addressClass: 'private' };
    case 'linkLocal':
      return { addressClass: 'link_local' };
    case 'unspecified':
      return { addressClass: 'unspecified' };
    case 'multicast':
      return { addressClass: 'multicast' };
    default: // documentation, benchmarking, discard, ORCHID, local-use NAT64, segment routing…
      return { addressClass: 'reserved' };
  }
}

const CLASS_LABELS: Record<AddressClass, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private-network address',
  link_local: 'a link-local address',
  cloud_metadata: 'a cloud metadata service address',
  carrier_grade_nat: 'a carrier-grade NAT (100.64.0.0/10) address',
  unspecified: 'the unspecified address (it reaches this host)',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved (non-routable) address',
  invalid: 'not a valid IP address',
};

const EMBEDDING_LABELS: Record<IPv4Embedding, string> = {
  ipv4_mapped: 'an IPv4-mapped',
  ipv4_translated: 'an IPv4-translated',
  nat64: 'a NAT64',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
};

/** "::ffff:127.0.0.1 is an IPv4-mapped address for 127.0.0.1, a loopback address". */
export function describeAddress(text: string, classification: AddressClassification): string {
  const label = CLASS_LABELS[classification.addressClass];
  if (classification.embeddedIPv4 && classification.embedding) {
    const how = EMBEDDING_LABELS[classification.embedding];
    return `${text} is ${how} IPv6 address for ${classification.embeddedIPv4}, ${label}`;
  }
  return `${text} is ${label}`;
}
