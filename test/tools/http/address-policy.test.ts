import { describe, expect, it } from 'vitest';
import {
  EgressPolicyError,
  checkAddress,
  classifyAddress,
  isHostnameAllowed,
} from '../../../src/tools/http/address-policy.ts';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['169.254.169.254', 'cloud_metadata'],
    ['fd00:ec2::254', 'cloud_metadata'],
    ['100.100.100.200', 'cloud_metadata'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::7f00:1', 'reserved'], // IPv4-compatible, outside 2000::/3
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.1', 'invalid'], // legacy shorthand is never guessed
    ['example.com', 'invalid'],
  ])('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip).addressClass).toBe(expected);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback', '127.0.0.1', 'ipv4_mapped'],
    ['::ffff:169.254.169.254', 'cloud_metadata', '169.254.169.254', 'ipv4_mapped'],
    ['::ffff:8.8.8.8', 'public', '8.8.8.8', 'ipv4_mapped'],
    ['64:ff9b::7f00:1', 'loopback', '127.0.0.1', 'nat64'],
    ['64:ff9b::a00:1', 'private', '10.0.0.1', 'nat64'],
    ['64:ff9b::808:808', 'public', '8.8.8.8', 'nat64'],
    ['2002:7f00:1::1', 'loopback', '127.0.0.1', '6to4'],
    ['2002:c0a8:101::1', 'private', '192.168.1.1', '6to4'],
    // Teredo: client 192.0.2.45 stored inverted (RFC 4380 example) -> documentation range.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved', '192.0.2.45', 'teredo'],
  ])('%s is %s through its embedded IPv4', (ip, expected, embedded, embedding) => {
    expect(classifyAddress(ip)).toEqual({ addressClass: expected, embeddedIPv4: embedded, embedding });
  });

  it('keeps the local-use NAT64 prefix non-public (its IPv4 position is operator-defined)', () => {
    expect(classifyAddress('64:ff9b:1::7f00:1').addressClass).toBe('reserved');
  });
});

describe('checkAddress', () => {
  const none = { allow: [] };

  it('allows public addresses under any policy and refuses the rest by default', () => {
    expect(checkAddress('8.8.8.8', none)).toEqual({ ok: true, addressClass: 'public' });
    const refused = checkAddress('127.0.0.1', none);
    expect(refused.ok).toBe(false);
    expect(refused.ok === false && refused.reason).toBe('127.0.0.1 is a loopback address');
    expect(checkAddress('not-an-ip', none).ok).toBe(false);
  });

  it('allows what a CIDR covers, including IPv4-mapped forms of it, and nothing else', () => {
    const policy = { allow: ['127.0.0.0/8'] };
    expect(checkAddress('127.0.0.1', policy).ok).toBe(true);
    expect(checkAddress('127.9.9.9', policy).ok).toBe(true);
    expect(checkAddress('::ffff:127.0.0.1', policy).ok).toBe(true);
    expect(checkAddress('::1', policy).ok).toBe(false);
    expect(checkAddress('10.0.0.1', policy).ok).toBe(false);
    expect(checkAddress('169.254.169.254', policy).ok).toBe(false);
    expect(checkAddress('::1', { allow: ['::1/128'] }).ok).toBe(true);
    expect(checkAddress('10.1.2.3', { allow: ['10.1.2.3'] }).ok).toBe(true);
    expect(checkAddress('10.1.2.4', { allow: ['10.1.2.3'] }).ok).toBe(false);
  });

  it('explains embedded addresses', () => {
    const refused = checkAddress('::ffff:169.254.169.254', none);
    expect(refused.ok === false && refused.reason).toBe(
      '::ffff:169.254.169.254 is an IPv4-mapped IPv6 address for 169.254.169.254, a cloud metadata service address',
    );
  });

  it('allows any address behind an allowed host name, and only that name', () => {
    const policy = { allow: ['localhost', '*.internal.example'] };
    expect(checkAddress('127.0.0.1', policy, 'localhost').ok).toBe(true);
    expect(checkAddress('127.0.0.1', policy, 'LOCALHOST.').ok).toBe(true);
    expect(checkAddress('10.0.0.5', policy, 'api.internal.example').ok).toBe(true);
    expect(checkAddress('10.0.0.5', policy, 'a.b.internal.example').ok).toBe(true);
    expect(checkAddress('10.0.0.5', policy, 'internal.example').ok).toBe(false);
    expect(checkAddress('10.0.0.5', policy, 'evilinternal.example').ok).toBe(false);
    expect(checkAddress('127.0.0.1', policy).ok).toBe(false);
    expect(isHostnameAllowed('other.example', policy)).toBe(false);
  });

  it('rejects malformed allow entries with the entry and the config key', () => {
    expect(() => checkAddress('10.0.0.1', { allow: ['10.0.0.0/33'] })).toThrow(EgressPolicyError);
    expect(() => checkAddress('10.0.0.1', { allow: ['ok.example', 'bad host!'] })).toThrow(
      /egress\.allow\[1\] "bad host!" is not a CIDR/,
    );
  });
});
