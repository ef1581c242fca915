import type { RequestAuth } from '../openapi/openapi-types.ts';
import { redact } from './auth-error.ts';

/**
 * A tool result with the call's credentials replaced by `[redacted]`. Results go to the model and
 * the transcript; a query-string key travels in URLs (a failed hop's URL is in the error) and an
 * API may echo a credential back.
 */
export function redactCredentials(text: string, auth: RequestAuth): string {
  const values = [...Object.values(auth.headers ?? {}), ...Object.values(auth.query ?? {})];
  // A bearer token is echoed without its scheme as often as with it.
  const tokens = values.flatMap((value) => /^Bearer (.+)$/.exec(value)?.[1] ?? []);
  return redactSecrets(text, [...values, ...tokens]);
}

/** Replaces every form of every secret in `text` (see {@link secretForms}) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const forms = new Set(secrets.flatMap(secretForms));
  // Longest first, so a form that contains another (`a\"b` holds `b`) goes whole.
  return redact(
    text,
    [...forms].sort((a, b) => b.length - a.length),
  );
}

/**
 * The forms a secret takes in text a server sends back: as is; inside a JSON string (`"` and `\`
 * escaped, once or, for JSON inside JSON, twice; non-ASCII as `\uXXXX`, as Python and Java write
 * it; `/` as `\/`, as PHP writes it); and inside a URL (percent-encoded, or form-encoded with `+`
 * for a space, in either hex case).
 */
export function secretForms(secret: string): string[] {
  const json = jsonEscape(secret);
  const url = [encodeURIComponent(secret), new URLSearchParams({ v: secret }).toString().slice(2)];
  return [
    ...new Set([
      secret,
      json,
      jsonEscape(json),
      asciiJson(json, 'lower'),
      asciiJson(json, 'upper'),
      json.replaceAll('/', '\\/'),
      ...url,
      ...url.map((form) => form.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())),
    ]),
  ];
}

/** The text between the quotes of `JSON.stringify(value)`. */
function jsonEscape(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/** JSON text with every non-ASCII UTF-16 unit written as `\uXXXX`. */
function asciiJson(json: string, hexCase: 'lower' | 'upper'): string {
  return json.replace(/[\u007f-\uffff]/g, (unit) => {
    const hex = unit.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${hexCase === 'lower' ? hex : hex.toUpperCase()}`;
  });
}
