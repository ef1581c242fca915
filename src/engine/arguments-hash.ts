import { createHash } from 'node:crypto';
import type { JsonValue } from '../domain/records.ts';

/** JSON with object keys sorted, so equal arguments hash equally whatever their key order. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function hashArguments(value: JsonValue): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
