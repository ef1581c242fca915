import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The Gemini fake's thought signatures: how it mints them and what it remembers having issued, so
 * its rules (`google-request-rules.ts`) can tell an exact echo from a missing, altered, moved or
 * foreign one. A signature is base64 of a random nonce and an HMAC (per-fake key) over the model
 * id and the content it signs (the call's name and arguments, or the text).
 */

/** The dummy signatures Google documents for histories that were not produced by Gemini. */
export const GOOGLE_DUMMY_THOUGHT_SIGNATURES: readonly string[] = [
  'skip_thought_signature_validator',
  'context_engineering_is_the_way_to_go',
];

/** A thought signature the fake minted, with what it signs. */
export interface IssuedThoughtSignature {
  signature: string;
  model: string;
  responseId: string;
  kind: 'functionCall' | 'text';
  /** For `functionCall`: the call it rides on. */
  call?: { name: string; args: Record<string, unknown>; id?: string };
  /** For `text`: the text of the response. */
  text?: string;
}

export interface IssuedCall {
  name: string;
  argsKey: string;
  id: string | undefined;
  signature: string | undefined;
}

export interface IssuedResponse {
  model: string;
  calls: IssuedCall[];
}

/** Gemini 3 and later (the models that mint and check thought signatures), by the model id. */
export function isGemini3OrLater(model: string): boolean {
  const match = /(?:^|\/)gemini-(\d+)/i.exec(model);
  return match != null && Number(match[1]) >= 3;
}

/** JSON with object keys sorted, so equal arguments compare equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value != null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const isDummy = (signature: unknown) =>
  typeof signature === 'string' && GOOGLE_DUMMY_THOUGHT_SIGNATURES.includes(signature);

export const callBinding = (model: string, name: string, argsKey: string) =>
  `functionCall\0${model}\0${name}\0${argsKey}`;
export const textBinding = (model: string, text: string) => `text\0${model}\0${text}`;

/** One fake's signing key, and every signature and response it issued. */
export class ThoughtSignatureLedger {
  private readonly hmacKey = randomBytes(32);
  /** Every thought signature minted so far, in order. */
  readonly issuedSignatures: IssuedThoughtSignature[] = [];
  private readonly issuedSignatureSet = new Set<string>();
  /** The calls of every response the fake answered, signed or not, in order. */
  readonly issuedResponses: IssuedResponse[] = [];

  private mac(nonce: Buffer, binding: string): Buffer {
    return createHmac('sha256', this.hmacKey).update(nonce).update(binding).digest();
  }

  /** Mints a signature for `binding` and remembers it as issued with what it signs. */
  sign(binding: string, issued: Omit<IssuedThoughtSignature, 'signature'>): string {
    const nonce = randomBytes(16);
    const signature = Buffer.concat([nonce, this.mac(nonce, binding)]).toString('base64');
    this.issuedSignatures.push({ signature, ...issued });
    this.issuedSignatureSet.add(signature);
    return signature;
  }

  /** Whether `signature` is exactly one this fake minted. */
  isIssued(signature: string): boolean {
    return this.issuedSignatureSet.has(signature);
  }

  /** Whether `signature` was minted by this fake for exactly `binding`. */
  verify(signature: string, binding: string): boolean {
    if (!this.issuedSignatureSet.has(signature)) return false;
    const raw = Buffer.from(signature, 'base64');
    if (raw.length !== 48) return false;
    const expected = this.mac(raw.subarray(0, 16), binding);
    return timingSafeEqual(raw.subarray(16), expected);
  }
}
