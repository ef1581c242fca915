/**
 * JSON columns are plain `text` on both dialects (Postgres `jsonb` would come back parsed and
 * SQLite's would not), so the repos serialise on write and parse on read here.
 */

export function toJsonText(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * The store only reads back what it wrote through `toJsonText`, so the cast is as sound as
 * the record types the writer was held to.
 */
export function fromJsonText<T>(text: string): T {
  return JSON.parse(text) as T;
}

export function fromNullableJsonText<T>(text: string | null): T | null {
  return text === null ? null : fromJsonText<T>(text);
}
