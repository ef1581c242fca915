/**
 * Credentials out of every log line, whatever carries them: a message, a detail object, an error
 * (its message, stack, cause and fields such as a provider's `responseBody`). Three nets, since no
 * one of them catches everything:
 *   - fields named as credentials (`authorization`, `x-api-key`, `cookie`, `apiKey`, `client_secret`,
 *     `password`, `*_token`…) are written as `[REDACTED]` at any depth;
 *   - text is searched for credential shapes: `Bearer …`, Baton keys (`bk_…`), provider keys
 *     (`sk-…`, `sk-ant-…`, `AIza…`), JWTs, URL user-info, credential query parameters,
 *     `api_key: …`-like pairs;
 *   - values this server knows are secret (its provider keys, admin key, secrets key, database
 *     password) are replaced wherever they appear, whatever their shape.
 * What the scrubbing cannot know (a password in free text with no name) is why bodies are never
 * logged: an error's `requestBodyValues` (the whole prompt sent to a provider) is left out too.
 */

import { isCredentialParameter, REDACTED } from './credential-names.ts';

/** Fields that are credentials though their names do not say key, token, secret or password. */
const CREDENTIAL_FIELDS: ReadonlySet<string> = new Set([
  'cookie',
  'set_cookie',
  'proxy_authorization',
  'passphrase',
  'private_key',
  'x_api_key',
]);

/** Fields of errors that are left out: large, and a copy of what was sent (prompts, tool arguments). */
const OMITTED_ERROR_FIELDS: ReadonlySet<string> = new Set(['requestBodyValues']);

/** An error's strings are cut at this length: a proxy's HTML error page says nothing more past it. */
const MAX_ERROR_TEXT = 4_096;

/** How deep a detail object is searched; past it, values are logged as they are. */
const MAX_DEPTH = 8;

/** A known secret shorter than this would be replaced inside ordinary words. */
const MIN_KNOWN_SECRET_LENGTH = 8;

/** `apiKey`, `X-Api-Key`, `client-secret` → `api_key`, `x_api_key`, `client_secret`. */
function normalizeFieldName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replaceAll('-', '_');
}

export function isCredentialField(name: string): boolean {
  const normalized = normalizeFieldName(name);
  return CREDENTIAL_FIELDS.has(normalized) || isCredentialParameter(normalized);
}

/** Credential shapes in free text, each with what replaces it. */
const CREDENTIAL_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  // An Authorization value: the scheme stays, it says which credential it was.
  [/\b(Bearer|Basic|Token|Digest)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  // Baton API keys (`bk_` and 32 characters; a key's public prefix, `bk_abcd`, is too short to match).
  [/\bbk_[A-Za-z0-9_-]{16,}/g, REDACTED],
  // OpenAI (`sk-…`, `sk-proj-…`) and Anthropic (`sk-ant-…`) keys; Google API keys.
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, REDACTED],
  // JWTs: OAuth access and id tokens of toolsets.
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  // GitHub, Slack and AWS credentials, which MCP and OpenAPI toolsets carry.
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b/g, REDACTED],
  // The user-info of a URL (`postgres://user:password@host`).
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi, `$1${REDACTED}@`],
];

/** `api_key: value`, `"client_secret":"value"`, `x-api-key=value` in text (headers, JSON, configuration dumps). */
const CREDENTIAL_NAMES =
  '(?:x[-_])?api[-_]?key|authorization|proxy-authorization|cookie|set-cookie|client[-_]?secret|password|passwd|' +
  'access[-_]?token|refresh[-_]?token';
// The name, its separator (quotes, `:` or `=`), then the value; an Authorization scheme is left to the shapes above.
const NAMED_VALUE = new RegExp(
  `\\b(${CREDENTIAL_NAMES})(["']?\\s*[:=]\\s*["']?)(?!(?:Bearer|Basic|Token|Digest)\\s)([^\\s"',;&)}\\]]+)`,
  'gi',
);

/** `?name=value` and `&name=value` anywhere in text, with the value of a credential parameter replaced. */
const QUERY_PARAMETER = /([?&])([^=&\s#"'?]+)=([^&\s#"']*)/g;

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}

/** An error as a log line holds it (the shape of pino's own `err` serializer). */
export interface SerializedError {
  type: string;
  message: string;
  stack: string;
  [field: string]: unknown;
}

/** Replaces credentials in log values; built once per server with the secrets it knows. */
export class LogSecretScrubber {
  private readonly knownSecrets: readonly string[];

  constructor(knownSecrets: readonly string[] = []) {
    // Longest first, so a secret that contains another is replaced whole.
    this.knownSecrets = [...new Set(knownSecrets)]
      .filter((secret) => secret.length >= MIN_KNOWN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    let scrubbed = text;
    for (const secret of this.knownSecrets) scrubbed = scrubbed.split(secret).join(REDACTED);
    for (const [shape, replacement] of CREDENTIAL_SHAPES) scrubbed = scrubbed.replace(shape, replacement);
    scrubbed = scrubbed.replace(
      NAMED_VALUE,
      (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`,
    );
    return scrubbed.replace(QUERY_PARAMETER, (match, start: string, name: string) =>
      isCredentialParameter(decodeName(name)) ? `${start}${name}=${REDACTED}` : match,
    );
  }

  /**
   * A detail value: strings scrubbed, credential fields replaced, plain objects and arrays
   * searched. Anything else (a request, a Buffer, an Error) is left to its serializer.
   */
  value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map((entry) => this.value(entry, depth + 1));
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, this.field(key, entry, depth + 1)]));
  }

  /** One field of a logged object: its name may say it is a credential. */
  field(key: string, value: unknown, depth = 0): unknown {
    if (isCredentialField(key) && value !== null && value !== undefined && typeof value !== 'boolean')
      return typeof value === 'number' ? value : REDACTED;
    return this.value(value, depth);
  }

  /**
   * The `err` serializer: type, message, stack, the error's own fields (a status, a code, a
   * provider's response body) and its cause, with credentials replaced and long text cut.
   */
  error(error: unknown, depth = 0): SerializedError {
    if (!(error instanceof Error)) {
      // Something thrown that is not an Error: logged as what it is.
      const value = this.value(error, depth);
      const fields = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { value };
      return { type: typeof error, message: typeof value === 'string' ? value : '', stack: '', ...fields };
    }
    const cut = (text: string) =>
      text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}… [${text.length - MAX_ERROR_TEXT} more]` : text;
    const serialized: SerializedError = {
      type: error.constructor.name === 'Error' ? error.name : error.constructor.name,
      message: cut(this.text(error.message)),
      stack: this.text(error.stack ?? ''),
    };
    for (const [key, entry] of Object.entries(error)) {
      if (key === 'cause' || key === 'message' || key === 'stack') continue;
      if (OMITTED_ERROR_FIELDS.has(key)) serialized[key] = '[omitted]';
      else if (entry instanceof Error)
        serialized[key] = depth < MAX_DEPTH ? this.error(entry, depth + 1) : String(entry);
      else {
        const field = this.field(key, entry, depth + 1);
        serialized[key] = typeof field === 'string' ? cut(field) : field;
      }
    }
    if (error.cause !== undefined && depth < MAX_DEPTH) serialized.cause = this.error(error.cause, depth + 1);
    if (error instanceof AggregateError && depth < MAX_DEPTH)
      serialized.errors = error.errors.map((inner: unknown) => this.error(inner, depth + 1));
    return serialized;
  }
}
