/**
 * Parameter serialisation per OpenAPI's `style` / `explode` (RFC 6570-like): turns an argument
 * value into the text of a path segment, query pairs, a header value or a cookie. Path and query
 * output is already percent-encoded, because the delimiters a style adds (`,` `.` `;` `|`) must
 * stay literal while the values around them are encoded.
 */
import { OpenApiError } from './openapi-error.ts';
import type { ParameterBinding } from './openapi-operations.ts';

type Encode = (text: string) => string;

const identity: Encode = (text) => text;

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value); // a nested object or array inside a parameter: no style covers it
}

/** What the value is, after `content`-described parameters were turned into JSON text. */
function shape(
  binding: ParameterBinding,
  value: unknown,
):
  | { kind: 'scalar'; text: string }
  | { kind: 'array'; items: string[] }
  | { kind: 'object'; entries: [string, string][] } {
  if (binding.contentType !== undefined)
    return { kind: 'scalar', text: /json/i.test(binding.contentType) ? JSON.stringify(value) : scalar(value) };
  if (Array.isArray(value)) return { kind: 'array', items: value.map(scalar) };
  if (typeof value === 'object' && value !== null)
    return { kind: 'object', entries: Object.entries(value).map(([key, item]) => [key, scalar(item)]) };
  return { kind: 'scalar', text: scalar(value) };
}

/** `simple` values, the building block of path, header and unexploded lists. */
function simple(value: ReturnType<typeof shape>, explode: boolean, encode: Encode, separator = ','): string {
  if (value.kind === 'scalar') return encode(value.text);
  if (value.kind === 'array') return value.items.map(encode).join(separator);
  return value.entries
    .map(([key, item]) => (explode ? `${encode(key)}=${encode(item)}` : `${encode(key)},${encode(item)}`))
    .join(separator);
}

/** The text that replaces `{name}` in the path. */
export function serializePathParameter(binding: ParameterBinding, raw: unknown): string {
  const value = shape(binding, raw);
  const enc = encodeURIComponent;
  switch (binding.style) {
    case 'label':
      return `.${simple(value, binding.explode, enc, binding.explode ? '.' : ',')}`;
    case 'matrix': {
      const name = enc(binding.name);
      if (value.kind === 'array' && binding.explode) return value.items.map((item) => `;${name}=${enc(item)}`).join('');
      if (value.kind === 'object' && binding.explode)
        return value.entries.map(([key, item]) => `;${enc(key)}=${enc(item)}`).join('');
      return `;${name}=${simple(value, false, enc)}`;
    }
    default:
      return simple(value, binding.explode, enc);
  }
}

/** Encoded `key=value` pairs for the query string (none for an empty exploded list). */
export function serializeQueryParameter(binding: ParameterBinding, raw: unknown): string[] {
  const value = shape(binding, raw);
  const enc = encodeURIComponent;
  const name = enc(binding.name);
  if (binding.style === 'deepObject' && value.kind === 'object') {
    return value.entries.map(([key, item]) => `${name}[${enc(key)}]=${enc(item)}`);
  }
  if (value.kind === 'array') {
    if (binding.explode) return value.items.map((item) => `${name}=${enc(item)}`);
    const separator = binding.style === 'spaceDelimited' ? '%20' : binding.style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${value.items.map(enc).join(separator)}`];
  }
  if (value.kind === 'object') {
    if (binding.explode) return value.entries.map(([key, item]) => `${enc(key)}=${enc(item)}`);
    return [`${name}=${simple(value, false, enc)}`];
  }
  return [`${name}=${enc(value.text)}`];
}

/** A header value (`simple` style); line breaks are refused, they would split the header. */
export function serializeHeaderParameter(binding: ParameterBinding, raw: unknown): string {
  const text = simple(shape(binding, raw), binding.explode, identity);
  if (/[\r\n\0]/.test(text))
    throw new OpenApiError(`header '${binding.name}' must not contain line breaks`, binding.argName);
  return text;
}

/** One `name=value` cookie pair; `;` and line breaks are refused, they would forge other cookies. */
export function serializeCookieParameter(binding: ParameterBinding, raw: unknown): string {
  const text = simple(shape(binding, raw), binding.explode, identity);
  if (/[;\r\n\0]/.test(text))
    throw new OpenApiError(`cookie '${binding.name}' must not contain ';' or line breaks`, binding.argName);
  return `${binding.name}=${text}`;
}
