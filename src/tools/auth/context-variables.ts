import type { JsonValue } from '../../domain/records.ts';
import { AuthError } from './auth-error.ts';

/**
 * `$context.variables.NAME` references: credentials that come from the session (a bearer token,
 * an MCP custom header) so that no resource ever stores them. Resolved at call time against the
 * session's variables.
 */

const REFERENCE = /^\$context\.variables\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** NAME of a `$context.variables.NAME` reference, or undefined when the text is not one. */
export function contextVariableName(text: string): string | undefined {
  return REFERENCE.exec(text.trim())?.[1];
}

/**
 * The text of session variable `name`, for the config value at `field`. It must be a non-empty
 * string (a number is written in decimal); surrounding whitespace is dropped because a pasted
 * token often carries a newline. Messages name the variable and its type, never its value.
 */
export function contextVariableText(
  name: string,
  variables: Readonly<Record<string, JsonValue>>,
  field: string,
): string {
  const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
  const refers = `${field} refers to session variable '${name}'`;
  if (value === undefined) {
    throw new AuthError(
      'missing_variable',
      `${refers}, which this session has not set; send it in the session's variables.`,
    );
  }
  let text: string | undefined;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  if (text === undefined) {
    throw new AuthError(
      'missing_variable',
      `${refers}, which is ${describeType(value)}; set it to a non-empty string in the session's variables.`,
    );
  }
  if (text === '') {
    throw new AuthError(
      'missing_variable',
      `${refers}, which is empty; set it to a non-empty string in the session's variables.`,
    );
  }
  return text;
}

/**
 * A map of header values (MCP `customHeaders`) with every `$context.variables.NAME` replaced by
 * the variable's text. A value that is not a reference is sent as written.
 */
export function resolveContextVariables(
  map: Readonly<Record<string, string>> | undefined,
  variables: Readonly<Record<string, JsonValue>>,
  field: string,
): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [header, raw] of Object.entries(map ?? {})) {
    const name = contextVariableName(raw);
    if (name === undefined) {
      resolved[header] = raw;
      continue;
    }
    const text = contextVariableText(name, variables, `${field}.${header}`);
    requireHeaderSafe(text, () => `${field}.${header} refers to session variable '${name}'`);
    resolved[header] = text;
  }
  return resolved;
}

/**
 * Header values may not hold control characters (a CR/LF would split the request) nor anything
 * beyond Latin-1. Checked here because the HTTP layer's own error quotes the offending value,
 * and that value is a credential.
 */
export function isHeaderSafe(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    // Tab (0x09) is the one control character a header value may hold.
    if ((code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff) return false;
  }
  return true;
}

/** Throws 'missing_variable' for a session variable that cannot be sent as a header value. */
export function requireHeaderSafe(value: string, describe: () => string): void {
  if (isHeaderSafe(value)) return;
  throw new AuthError(
    'missing_variable',
    `${describe()}, whose value has control characters (such as a line break) or non-Latin-1 characters ` +
      `and cannot be sent in an HTTP header; fix the value in the session's variables.`,
  );
}

function describeType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return 'a non-finite number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
