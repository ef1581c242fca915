import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SecretCipher, SecretDecryptionError, secretsKeyId } from '../../../src/tools/secrets/secret-cipher.ts';

const PLAINTEXT = 'sk-live-0123456789abcdefSUPERSECRET';
const AD = 'app_1/sec_1';

function failure(run: () => unknown): SecretDecryptionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretDecryptionError);
    const e = error as SecretDecryptionError;
    expect(e.message).not.toContain(PLAINTEXT);
    expect(String(e.stack)).not.toContain(PLAINTEXT);
    return e;
  }
  throw new Error('expected decrypt to throw');
}

/** Replaces part `index` of an encoded value (0 version, 1 key id, 2 iv, 3 tag, 4 ciphertext). */
function withPart(encoded: string, index: number, change: (part: string) => string): string {
  const parts = encoded.split('.');
  parts[index] = change(parts[index] ?? '');
  return parts.join('.');
}

/** Flips one bit of a base64url part, keeping it canonical. */
function flipBit(part: string, byte = 0): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[byte] = (bytes[byte] ?? 0) ^ 0x01;
  return bytes.toString('base64url');
}

describe('SecretCipher', () => {
  const key = randomBytes(32);
  const cipher = new SecretCipher(key);

  it('round-trips, including empty and non-ASCII values', () => {
    for (const value of [PLAINTEXT, '', 'pässwörd 🔑', 'x'.repeat(10_000)]) {
      expect(cipher.decrypt(cipher.encrypt(value, AD), AD)).toBe(value);
    }
  });

  it('decrypts with a second cipher built from the same key', () => {
    expect(new SecretCipher(Buffer.from(key)).decrypt(cipher.encrypt(PLAINTEXT, AD), AD)).toBe(PLAINTEXT);
  });

  it('writes v1.<keyId>.<iv>.<tag>.<ct> with the key id from sha256(key)', () => {
    const encoded = cipher.encrypt(PLAINTEXT, AD);
    const [version, keyId, iv, tag, ct] = encoded.split('.');
    expect(version).toBe('v1');
    expect(keyId).toMatch(/^[0-9a-f]{8}$/);
    expect(keyId).toBe(cipher.keyId);
    expect(keyId).toBe(secretsKeyId(key));
    expect(Buffer.from(iv!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(ct!, 'base64url')).toHaveLength(Buffer.byteLength(PLAINTEXT));
    expect(encoded).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  it('never shows the plaintext in the encoded value, nor the key when inspected', () => {
    const encoded = cipher.encrypt(PLAINTEXT, AD);
    expect(encoded).not.toContain(PLAINTEXT);
    expect(encoded).not.toContain(Buffer.from(PLAINTEXT).toString('base64url'));
    expect(inspect(cipher, { showHidden: true, depth: 5 })).not.toContain(key.toString('hex'));
    expect(JSON.stringify(cipher)).not.toContain(key.toString('hex'));
  });

  it('gives different output for two encryptions of the same value', () => {
    const a = cipher.encrypt(PLAINTEXT, AD);
    const b = cipher.encrypt(PLAINTEXT, AD);
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
  });

  it('refuses a tampered ciphertext, tag or iv', () => {
    const encoded = cipher.encrypt(PLAINTEXT, AD);
    for (const index of [2, 3, 4]) {
      const e = failure(() =>
        cipher.decrypt(
          withPart(encoded, index, (p) => flipBit(p)),
          AD,
        ),
      );
      expect(e.reason).toBe('authentication_failed');
      expect(e.message).toMatch(/authentication failed/);
    }
    // Tampering with the last byte of the ciphertext too.
    const last = Buffer.byteLength(PLAINTEXT) - 1;
    expect(
      failure(() =>
        cipher.decrypt(
          withPart(encoded, 4, (p) => flipBit(p, last)),
          AD,
        ),
      ).reason,
    ).toBe('authentication_failed');
  });

  it('refuses a value bound to other associated data (copied to another row)', () => {
    const encoded = cipher.encrypt(PLAINTEXT, AD);
    for (const other of ['app_1/sec_2', 'app_2/sec_1', '', 'app_1/sec_1 ']) {
      expect(failure(() => cipher.decrypt(encoded, other)).reason).toBe('authentication_failed');
    }
  });

  it('refuses a value written with another key and names both key ids', () => {
    const other = new SecretCipher(randomBytes(32));
    const encoded = other.encrypt(PLAINTEXT, AD);
    const e = failure(() => cipher.decrypt(encoded, AD));
    expect(e.reason).toBe('wrong_key');
    expect(e.foundKeyId).toBe(other.keyId);
    expect(e.message).toContain(other.keyId);
    expect(e.message).toContain(cipher.keyId);
    expect(e.message).toContain('encrypted with another key');
    expect(e.message).toContain('set BATON_SECRETS_KEY to the key it was written with');
  });

  it('refuses a forged key id that matches the key but a tag from another key', () => {
    const other = new SecretCipher(randomBytes(32));
    const forged = withPart(other.encrypt(PLAINTEXT, AD), 1, () => cipher.keyId);
    expect(failure(() => cipher.decrypt(forged, AD)).reason).toBe('authentication_failed');
  });

  it('refuses malformed strings', () => {
    const good = cipher.encrypt(PLAINTEXT, AD);
    const [, keyId, iv, tag, ct] = good.split('.');
    const bad = [
      '',
      PLAINTEXT,
      'v1',
      `v1.${keyId}.${iv}.${tag}`,
      `${good}.extra`,
      `v2.${keyId}.${iv}.${tag}.${ct}`,
      `V1.${keyId}.${iv}.${tag}.${ct}`,
      `v1.${keyId!.toUpperCase()}x.${iv}.${tag}.${ct}`,
      `v1.1234567.${iv}.${tag}.${ct}`,
      `v1.${keyId}.${iv}AA.${tag}.${ct}`, // 14-byte iv
      `v1.${keyId}.${iv}.${tag!.slice(0, 16)}.${ct}`, // 12-byte (truncated) tag
      `v1.${keyId}..${tag}.${ct}`,
      `v1.${keyId}.${iv}.${tag}.${ct}!`,
      `v1.${keyId}.${iv}.${tag}.${ct}=`,
      `v1.${keyId}.${iv!.replace(/./, '+')}.${tag}.${ct}`,
      ` ${good}`,
    ];
    for (const value of bad) {
      const e = failure(() => cipher.decrypt(value, AD));
      expect(e.reason, value).toBe('malformed');
      expect(e.message).toMatch(/malformed/);
    }
    expect(failure(() => cipher.decrypt(undefined as unknown as string, AD)).reason).toBe('malformed');
  });

  it('rejects keys that are not 32 bytes', () => {
    expect(() => new SecretCipher(randomBytes(16))).toThrow(/32-byte key/);
    expect(() => new SecretCipher(randomBytes(33))).toThrow(/32-byte key/);
  });

  it('keeps its own copy of the key', () => {
    const mutable = Buffer.from(key);
    const own = new SecretCipher(mutable);
    const encoded = own.encrypt(PLAINTEXT, AD);
    mutable.fill(0);
    expect(own.decrypt(encoded, AD)).toBe(PLAINTEXT);
  });

  it('refuses a value with a lone surrogate rather than altering it, without echoing it', () => {
    const value = `${PLAINTEXT}\ud800`;
    expect(() => cipher.encrypt(value, AD)).toThrow(/well-formed/);
    try {
      cipher.encrypt(value, AD);
    } catch (error) {
      expect((error as Error).message).not.toContain(PLAINTEXT);
    }
  });
});
