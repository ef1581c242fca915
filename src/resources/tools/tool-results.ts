import type { ServerCallResult } from '../../engine/index.ts';
import type { JsonValue } from '../../domain/records.ts';
import { isJsonObject } from '../json-objects.ts';

/** A text result, as the model reads it. */
export function textResult(text: string, isError: boolean): ServerCallResult {
  return { output: [{ type: 'text', text }], isError };
}

/**
 * A JSON value returned by sandboxed code (a jsFunction or a fake) as a tool result, by CES's
 * ToolResponse convention: `{output}` is the result, `{error}` a failure the model should see,
 * and any other value the result as a whole.
 */
export function jsonResult(value: JsonValue): ServerCallResult {
  const keys = isJsonObject(value) ? Object.keys(value) : [];
  if (isJsonObject(value) && keys.length === 1 && value.output !== undefined)
    return textResult(asText(value.output), false);
  if (isJsonObject(value) && keys.length === 1 && value.error !== undefined)
    return textResult(asText(value.error), true);
  return textResult(asText(value), false);
}

function asText(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}
