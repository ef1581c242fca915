import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { EgressError } from './egress-error.ts';

/**
 * Custom certificate authorities for one toolset (CES `tlsConfig.caCerts[].cert`).
 *
 * CES sends each certificate as base64 DER; operators also paste PEM, or base64 of a PEM file
 * (what `base64 example.com.crt` gives for the certificate CES's own openssl example writes).
 * All become PEM here, each parsed by X509Certificate. The resources check every entry with
 * `caCertificatesOf` when a toolset is written, so a typo fails there, naming the entry, rather
 * than as an opaque handshake failure later.
 */
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Why a `caCerts[].cert` value holds no usable certificate, in words for whoever wrote it. */
export class CaCertificateError extends Error {
  override readonly name = 'CaCertificateError';
}

/** The certificates one `caCerts[].cert` value holds, as PEM; throws CaCertificateError saying why not. */
export function caCertificatesOf(raw: string): string[] {
  const text = raw.trim();
  if (text === '') throw new CaCertificateError('it is empty');
  if (text.includes('-----BEGIN')) return pemCertificates(text);
  const bytes = decodeBase64(text);
  const asText = bytes.subarray(0, 64).toString('latin1').trimStart();
  if (asText.startsWith('-----BEGIN')) return pemCertificates(bytes.toString('latin1'));
  return [parseCertificate(bytes, `its base64 decodes to ${bytes.length} bytes that are not a DER certificate`)];
}

function pemCertificates(text: string): string[] {
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length > 0) return blocks.map((block) => parseCertificate(block));
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
    throw new CaCertificateError('it is a private key, not a certificate; send the CA certificate only');
  throw new CaCertificateError('it has a PEM header but no complete CERTIFICATE block');
}

/** `why` replaces OpenSSL's words where they would mislead (it reports DER garbage as a missing PEM line). */
function parseCertificate(input: string | Buffer, why?: string): string {
  try {
    return new X509Certificate(input).toString().trim();
  } catch (error) {
    throw new CaCertificateError(`it is not a readable X.509 certificate (${why ?? (error as Error).message})`, {
      cause: error,
    });
  }
}

function decodeBase64(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  // Buffer.from silently skips invalid characters; check so garbage is reported, not half-parsed.
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact))
    throw new CaCertificateError('it is neither PEM nor base64 (it has characters base64 does not use)');
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
}

/** Every certificate of a toolset's `caCerts[].cert` values, as PEM, for a TLS client. */
export function toPemCertificates(certs: readonly string[]): string[] {
  return certs.flatMap((raw, index) => {
    try {
      return caCertificatesOf(raw);
    } catch (error) {
      if (!(error instanceof CaCertificateError)) throw error;
      throw new EgressError(
        'tls_error',
        `tlsConfig.caCerts[${index}] cannot be used: ${error.message}. Give the certificate as base64 DER or PEM.`,
        { cause: error },
      );
    }
  });
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
