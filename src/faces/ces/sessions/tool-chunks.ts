import type { ContentPart, JsonValue } from '../../../domain/records.ts';
import type { ToolCallWire, ToolResponseOutWire } from './session-wire.ts';
import { toolRefOf, type ToolIdentity } from './tool-call-names.ts';

/**
 * The CES `ToolCall` and `ToolResponse` of a call, shared by session outputs, diagnosticInfo and
 * conversations so a call reads the same wherever a client meets it.
 */
export function toolCallWire(id: string, identity: ToolIdentity, args: Record<string, unknown>): ToolCallWire {
  return { id, ...toolRefOf(identity), displayName: identity.displayName, args };
}

/** A result as `{output: …}`, a failure as `{error: …}`; JSON text is parsed back to its value. */
export function toolResponseWire(
  id: string,
  identity: ToolIdentity,
  output: readonly ContentPart[],
  isError: boolean,
): ToolResponseOutWire {
  const value = parseJson(output.map((part) => (part.type === 'text' ? part.text : '')).join(''));
  return {
    id,
    ...toolRefOf(identity),
    displayName: identity.displayName,
    response: isError ? { error: value } : { output: value },
  };
}

/** The model's argument text as the Struct CES expects; anything but an object is `{}`. */
export function argsFromText(text: string): Record<string, unknown> {
  const parsed = parseJson(text);
  return isRecord(parsed) ? parsed : {};
}

/** A ledger row's stored arguments as a Struct. */
export function argsFromValue(value: JsonValue): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
