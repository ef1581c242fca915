import { hkdfSync } from 'node:crypto';
import { PageTokenCodec } from '../aip/page-token.ts';
import { SecretCipher } from '../../tools/secrets/secret-cipher.ts';

/** Server-held keys: the secret store's cipher and the page-token codec (derived from one key). */
export interface ServerKeys {
  secrets: SecretCipher;
  pageTokens: PageTokenCodec;
}

/**
 * Every server-held key from the one secrets key: secrets are encrypted with it, page tokens
 * with a key derived from it (HKDF), so tokens survive restarts and work across processes
 * without a second key to configure.
 */
export function serverKeys(secretsKey: Buffer): ServerKeys {
  const pageTokenKey = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'baton page tokens v1', 32));
  return { secrets: new SecretCipher(secretsKey), pageTokens: new PageTokenCodec(pageTokenKey) };
}
