import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { EgressError } from './egress-error.ts';

/**
 * Custom certificate authorities for one toolset (CES `tlsConfig.caCerts[].cert`).
 *
 * CES sends each certificate as base64 DER; operators also paste PEM. Both become PEM here, each
 * parsed by X509Certificate so a typo fails when the toolset is configured, with the entry's index,
 * rather than as an opaque handshake failure later.
 */
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export function toPemCertificates(certs: readonly string[]): string[] {
  const pems: string[] = [];
  certs.forEach((raw, index) => {
    const text = raw.trim();
    const blocks = text.includes('-----BEGIN') ? (text.match(PEM_BLOCK) ?? []) : [decodeBase64(text)];
    if (blocks.length === 0) throw invalidCa(index, 'it has a PEM header but no complete CERTIFICATE block');
    for (const block of blocks) {
      try {
        pems.push(new X509Certificate(block).toString().trim());
      } catch (error) {
        throw invalidCa(index, `it is not a readable X.509 certificate (${(error as Error).message})`, error);
      }
    }
  });
  return pems;
}

function decodeBase64(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  // Buffer.from silently skips invalid characters; check so garbage is reported, not half-parsed.
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return Buffer.alloc(0);
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
}

function invalidCa(index: number, why: string, cause?: unknown): EgressError {
  return new EgressError(
    'tls_error',
    `tlsConfig.caCerts[${index}] cannot be used: ${why}. Give the certificate as base64 DER or PEM.`,
    { cause },
  );
}

/** A stable key for a set of certificates, to share one connection pool per (policy, CAs). */
export function caSetKey(pems: readonly string[]): string {
  if (pems.length === 0) return '';
  const hash = createHash('sha256');
  for (const pem of [...pems].sort()) hash.update(pem).update('\0');
  return hash.digest('hex');
}

let defaultRoots: readonly string[] | undefined;

/**
 * The trust store for a client with custom CAs: Node's bundled roots plus NODE_EXTRA_CA_CERTS plus
 * the toolset's own. Setting `ca` on a connection replaces the defaults, and a private API may
 * still redirect to (or sit behind) a publicly trusted host, so the defaults are kept.
 */
export function trustStoreWith(custom: readonly string[]): string[] {
  defaultRoots ??= [...tls.rootCertificates, ...readExtraCaCerts()];
  return [...defaultRoots, ...custom];
}

function readExtraCaCerts(): string[] {
  const file = process.env['NODE_EXTRA_CA_CERTS'];
  if (!file) return [];
  try {
    return readFileSync(file, 'utf8').match(PEM_BLOCK) ?? [];
  } catch {
    return []; // Node itself only warns about an unreadable file; do the same (silently).
  }
}
