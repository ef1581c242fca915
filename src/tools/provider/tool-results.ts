import type { ServerCallResult } from '../../engine/server-calls.ts';
import type { JsonValue } from '../../store/records.ts';
import { isObject } from './call-environment.ts';

/** A text result, as the model reads it. */
export function textResult(text: string, isError: boolean): ServerCallResult {
  return { output: [{ type: 'text', text }], isError };
}

/**
 * A JSON value returned by sandboxed code (a jsFunction or a fake) as a tool result. CES's
 * convention applies: an object with `error` and no `output` is a failure the model should see.
 */
export function jsonResult(value: JsonValue): ServerCallResult {
  const isError = isObject(value) && value.error !== undefined && value.output === undefined;
  return textResult(typeof value === 'string' ? value : JSON.stringify(value), isError);
}
