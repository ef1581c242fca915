import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { BatonError } from '../../domain/errors/baton-error.ts';

/**
 * AIP-158 page tokens. A token is the position after the last returned item plus a fingerprint of
 * the request, sealed with AES-256-GCM: clients cannot read, edit or forge it, so it stays opaque
 * and Baton can change what it holds without breaking anyone.
 */
export interface PageTokenState {
  /** The sort key of the last item returned. */
  position: string[];
  /** A fingerprint of everything that shapes the list: parent, filter, orderBy, … */
  query: string;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Binds the ciphertext to this use, so anything else sealed with the same key does not decode here.
const ASSOCIATED_DATA = Buffer.from('baton.ces.page-token.v1');
const MAX_TOKEN_CHARS = 8192;

export function invalidPageToken(): BatonError {
  return new BatonError(
    'invalid_page_token',
    'Invalid pageToken: pass the nextPageToken of a previous list response unchanged.',
    {
      param: 'pageToken',
    },
  );
}

// Only a hash of the query travels, keeping tokens short whatever the filter's length.
function fingerprint(query: string): string {
  return createHash('sha256').update(query).digest('base64url').slice(0, 22);
}

function isState(value: unknown): value is { p: string[]; q: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { p, q } = value as { p?: unknown; q?: unknown };
  return typeof q === 'string' && Array.isArray(p) && p.every((part) => typeof part === 'string');
}

export class PageTokenCodec {
  readonly #key: Buffer;

  /** `secret` is 32 random bytes, stable across restarts so tokens outlive the process. */
  constructor(secret: Buffer) {
    if (secret.length !== 32) {
      throw new BatonError(
        'invalid_page_token_secret',
        `The page token secret must be 32 bytes, not ${secret.length}.`,
      );
    }
    this.#key = Buffer.from(secret);
  }

  encode(state: PageTokenState): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv).setAAD(ASSOCIATED_DATA);
    const plain = Buffer.from(JSON.stringify({ p: state.position, q: fingerprint(state.query) }));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The position a token holds; throws when it was tampered with or issued for another request. */
  decode(token: string, query: string): string[] {
    const state = this.#open(token);
    if (state === null) throw invalidPageToken();
    if (state.q !== fingerprint(query)) {
      throw new BatonError(
        'page_token_mismatch',
        'pageToken was issued for a different request (filter, orderBy or parent changed); repeat the ' +
          'request with the same parameters as the one that returned the token, or omit pageToken to ' +
          'start from the first page.',
        { param: 'pageToken' },
      );
    }
    return state.p;
  }

  #open(token: string): { p: string[]; q: string } | null {
    // Buffer.from ignores stray characters, so check the alphabet first.
    if (token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    if (bytes.length < 1 + IV_BYTES + TAG_BYTES + 1 || bytes[0] !== VERSION) return null;
    try {
      const iv = bytes.subarray(1, 1 + IV_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv).setAAD(ASSOCIATED_DATA);
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
      const state: unknown = JSON.parse(plain.toString('utf8'));
      return isState(state) ? state : null;
    } catch {
      return null;
    }
  }
}

/**
 * AIP-158 page size: missing or 0 means the default, more than the maximum is lowered to it.
 * Numeric strings are accepted because the value usually arrives in a query string.
 */
export function readPageSize(value: unknown, options: { defaultSize?: number; maxSize?: number } = {}): number {
  const { defaultSize = 50, maxSize = 1000 } = options;
  if (value === undefined || value === null || value === '') return defaultSize;
  let size = Number.NaN;
  if (typeof value === 'number') size = value;
  else if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value))
    size = Math.min(Number(value), Number.MAX_SAFE_INTEGER);
  if (!Number.isInteger(size) || size < 0) {
    const shown =
      typeof value === 'string' || typeof value === 'number'
        ? `'${value}'`
        : `of type ${Array.isArray(value) ? 'array' : typeof value}`;
    throw new BatonError(
      'invalid_page_size',
      `Invalid pageSize ${shown}: pass a non-negative whole number (0 or omitted uses the default ` +
        `of ${defaultSize}; values above ${maxSize} are lowered to ${maxSize}).`,
      { param: 'pageSize' },
    );
  }
  if (size === 0) return defaultSize;
  return Math.min(size, maxSize);
}
