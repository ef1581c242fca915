import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption for stored tool secrets (API keys, OAuth client secrets).
 *
 * Encoded form, one ASCII string safe for a TEXT column:
 *
 *     v1.<keyId>.<base64url iv>.<base64url tag>.<base64url ciphertext>
 *
 * - AES-256-GCM, a fresh random 12-byte IV per encryption, a 16-byte tag.
 * - `keyId` is the first 8 hex characters of sha256(key): it lets a reader say "written with
 *   another key" instead of "corrupt", and leaves room for key rotation (several ciphers, pick by id).
 * - The caller's associated data (e.g. `appId/secretId`) is authenticated but not stored, so a
 *   ciphertext copied into another secret's row fails to decrypt.
 *
 * Neither the plaintext nor the encoded value ever appears in an error message.
 */

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_PATTERN = /^[0-9a-f]{8}$/;
const BASE64URL_PATTERN = /^[A-Za-z0-9_-]*$/;

export type SecretDecryptionFailure =
  /** Not a `v1.<keyId>.<iv>.<tag>.<ct>` string, or a part has the wrong length. */
  | 'malformed'
  /** Well-formed, but written under a key with another id. */
  | 'wrong_key'
  /** Same key id, but the tag does not verify: tampered, or bound to other associated data. */
  | 'authentication_failed';

/** Thrown by {@link SecretCipher.decrypt}; the message never contains the plaintext or the encoded value. */
export class SecretDecryptionError extends Error {
  readonly reason: SecretDecryptionFailure;
  /** For `wrong_key`: the id of the key the value was written with; otherwise null. */
  readonly foundKeyId: string | null;

  constructor(reason: SecretDecryptionFailure, message: string, foundKeyId: string | null = null) {
    super(message);
    this.name = 'SecretDecryptionError';
    this.reason = reason;
    this.foundKeyId = foundKeyId;
  }
}

/** The first 8 hex characters of sha256(key): identifies a key without revealing it. */
export function secretsKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export class SecretCipher {
  readonly keyId: string;
  // A private field so that util.inspect, console.log and JSON.stringify never show the key.
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
      throw new TypeError(`SecretCipher needs a ${KEY_BYTES}-byte key`);
    }
    this.#key = Buffer.from(key); // own copy: the caller may reuse or zero its buffer
    this.keyId = secretsKeyId(this.#key);
  }

  encrypt(plaintext: string, associatedData: string): string {
    const data = Buffer.from(plaintext, 'utf8');
    // A lone surrogate would be silently replaced by U+FFFD and not survive the round trip.
    if (data.toString('utf8') !== plaintext) {
      throw new TypeError('secret value is not well-formed Unicode (it contains a lone surrogate)');
    }
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, this.keyId, b64(iv), b64(tag), b64(ciphertext)].join('.');
  }

  decrypt(encoded: string, associatedData: string): string {
    const parts = typeof encoded === 'string' ? encoded.split('.') : [];
    const [version, keyId, ivPart, tagPart, ctPart] = parts;
    if (
      parts.length !== 5 ||
      version === undefined ||
      keyId === undefined ||
      ivPart === undefined ||
      tagPart === undefined ||
      ctPart === undefined
    ) {
      throw malformed(`expected ${VERSION}.<keyId>.<iv>.<tag>.<ciphertext>`);
    }
    if (version !== VERSION) {
      throw malformed(`unsupported format version (expected ${VERSION})`);
    }
    if (!KEY_ID_PATTERN.test(keyId)) throw malformed('the key id is not 8 lowercase hex characters');
    const iv = fromB64(ivPart, 'iv');
    const tag = fromB64(tagPart, 'tag');
    const ciphertext = fromB64(ctPart, 'ciphertext');
    if (iv.length !== IV_BYTES) throw malformed(`the iv must be ${IV_BYTES} bytes`);
    if (tag.length !== TAG_BYTES) throw malformed(`the tag must be ${TAG_BYTES} bytes`);

    if (keyId !== this.keyId) {
      throw new SecretDecryptionError(
        'wrong_key',
        `cannot decrypt secret: it was encrypted with another key (key id ${keyId}, the current key's id is ${this.keyId}); ` +
          'set BATON_SECRETS_KEY to the key it was written with',
        keyId,
      );
    }

    const decipher = createDecipheriv(ALGORITHM, this.#key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tag);
    let plaintext: Buffer;
    try {
      plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      // Deliberately no `cause`: keep Node's error (and anything it might carry) out of logs.
      throw new SecretDecryptionError(
        'authentication_failed',
        'cannot decrypt secret: authentication failed — the stored value was altered or belongs to another secret',
      );
    }
    return plaintext.toString('utf8');
  }
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/** Strict base64url: Node's decoder silently skips junk, so check the alphabet and the round trip. */
function fromB64(part: string, what: string): Buffer {
  if (!BASE64URL_PATTERN.test(part)) throw malformed(`the ${what} is not base64url`);
  const bytes = Buffer.from(part, 'base64url');
  if (bytes.toString('base64url') !== part) throw malformed(`the ${what} is not canonical base64url`);
  return bytes;
}

function malformed(detail: string): SecretDecryptionError {
  return new SecretDecryptionError('malformed', `cannot decrypt secret: malformed encrypted value (${detail})`);
}
