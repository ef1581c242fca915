import { hkdfSync } from 'node:crypto';
import { PageTokenCodec } from '../aip/page-token.ts';
import { SecretCipher } from '../../tools/secrets/secret-cipher.ts';
import type { ServerKeys } from '../../faces/kit/face-context.ts';

/**
 * Every server-held key from the one secrets key: secrets are encrypted with it, page tokens
 * with a key derived from it (HKDF), so tokens survive restarts and work across processes
 * without a second key to configure.
 */
export function serverKeys(secretsKey: Buffer): ServerKeys {
  const pageTokenKey = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'baton page tokens v1', 32));
  return { secrets: new SecretCipher(secretsKey), pageTokens: new PageTokenCodec(pageTokenKey) };
}
