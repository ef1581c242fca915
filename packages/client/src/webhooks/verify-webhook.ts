import { BatonWebhookVerificationError } from '../errors.ts';
import { sha256Bytes } from '../http/sha256.ts';
import type { WebhookEvent } from '../wire/webhooks.ts';

/** Request headers: a fetch `Headers`, or a plain object such as Node's `request.headers` (any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, either way, in seconds (default 300, five minutes). */
  toleranceSeconds?: number;
  /** The time to check the timestamp against (default: now). */
  now?: Date;
}

export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';

/**
 * Checks that a webhook request comes from Baton, as the Standard Webhooks specification says:
 * `webhook-signature` holds one or more space-separated `v1,<base64>` signatures, each an
 * HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${payload}` keyed with the base64-decoded part
 * of a `whsec_…` secret; one must match one of `secret` (give both secrets while a rotation's grace
 * period lasts), compared in constant time, and the timestamp must be within `toleranceSeconds` of
 * now (replays of an old request are refused).
 *
 * `payload` is the raw body exactly as received: a body parsed and serialised again may differ by a
 * byte and fail. Resolves with the parsed event; rejects with a `BatonWebhookVerificationError`
 * whose `reason` says why (a missing header, a stale or future timestamp, no matching signature),
 * or a `TypeError` when `secret` is not a usable secret. Uses Web Crypto (Node 20+, browsers).
 */
export async function verifyWebhook<D = Record<string, unknown>>(
  payload: string,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent<D>> {
  const keys = (typeof secret === 'string' ? [secret] : [...secret]).map(secretKey);
  if (keys.length === 0) throw new TypeError('verifyWebhook needs at least one secret (whsec_…).');
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatureText = header(headers, 'webhook-signature');
  const missing = [
    ['webhook-id', id],
    ['webhook-timestamp', timestampText],
    ['webhook-signature', signatureText],
  ].flatMap(([name, value]) => (value === undefined || value === '' ? [name] : []));
  if (missing.length > 0)
    throw new BatonWebhookVerificationError(
      'missing_header',
      `The request has no ${missing.join(', ')} header${missing.length > 1 ? 's' : ''}: it is not a signed webhook.`,
    );
  checkTimestamp(timestampText!, options);
  // `v1,<base64>` entries; other versions (`v1a`, asymmetric) and malformed entries are not ours.
  const signatures = signatureText!.split(/\s+/).flatMap((entry) => {
    const comma = entry.indexOf(',');
    const bytes = comma > 0 && entry.slice(0, comma) === 'v1' ? fromBase64(entry.slice(comma + 1)) : null;
    return bytes ? [bytes] : [];
  });
  const signed = new TextEncoder().encode(`${id}.${timestampText}.${payload}`);
  let matched = false;
  for (const key of keys) {
    const expected = await hmacSha256(key, signed);
    // Every signature against every secret, without stopping early: the time taken says nothing.
    for (const signature of signatures) matched = constantTimeEqual(expected, signature) || matched;
  }
  if (!matched)
    throw new BatonWebhookVerificationError(
      'no_matching_signature',
      signatures.length === 0
        ? 'The webhook-signature header holds no v1 signature.'
        : `None of the ${signatures.length} v1 signature${signatures.length > 1 ? 's' : ''} matches ` +
            `the ${keys.length > 1 ? `${keys.length} secrets` : 'secret'}: the body, id or timestamp was changed, or the secret is not this endpoint's.`,
    );
  try {
    return JSON.parse(payload) as WebhookEvent<D>;
  } catch {
    throw new BatonWebhookVerificationError('invalid_payload', 'The signature matches, but the body is not JSON.');
  }
}

function checkTimestamp(text: string, options: VerifyWebhookOptions): void {
  if (!/^\d{1,15}$/.test(text))
    throw new BatonWebhookVerificationError(
      'invalid_timestamp',
      `webhook-timestamp ${JSON.stringify(text.slice(0, 40))} is not a Unix time in seconds.`,
    );
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const timestamp = Number(text);
  if (now - timestamp > tolerance)
    throw new BatonWebhookVerificationError(
      'timestamp_too_old',
      `webhook-timestamp is ${now - timestamp} s old, more than the ${tolerance} s tolerated: a late or replayed request.`,
    );
  if (timestamp - now > tolerance)
    throw new BatonWebhookVerificationError(
      'timestamp_too_new',
      `webhook-timestamp is ${timestamp - now} s in the future, more than the ${tolerance} s tolerated: check the clocks.`,
    );
}

/** A header by name, any case; a repeated one (an array) joined with spaces. */
function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function')
    return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

/** The HMAC key of a `whsec_…` secret: the bytes its base64 part encodes. */
function secretKey(secret: string): Uint8Array<ArrayBuffer> {
  if (typeof secret !== 'string') throw new TypeError('A webhook secret is a string (whsec_…).');
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = fromBase64(encoded);
  if (key === null || key.length === 0)
    throw new TypeError('A webhook secret is `whsec_` and base64, as Baton showed it at creation or rotation.');
  return key;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Equal length and bytes, in a time that depends on the length only. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** HMAC-SHA256 with Web Crypto; where it is missing (a browser page on plain HTTP), in JavaScript. */
export async function hmacSha256(key: Uint8Array<ArrayBuffer>, message: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (typeof subtle?.importKey !== 'function') return hmacSha256Js(key, message);
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, message));
}

/** RFC 2104 over the SDK's SHA-256. */
export function hmacSha256Js(key: Uint8Array, message: Uint8Array): Uint8Array {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256Bytes(key) : key);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i]! ^ 0x36;
    outer[i] = block[i]! ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(sha256Bytes(inner), 64);
  return sha256Bytes(outer);
}
