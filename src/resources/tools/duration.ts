import { clampToDurationRange, inDurationRange, type DurationRange } from '../../domain/duration-ranges.ts';

// Whole seconds are capped at 12 digits, a protobuf Duration's own limit (315,576,000,000 s), so
// "99999999999999999999s" is refused as out of range rather than read as 1e20.
const DURATION = /^(\d{1,12})(?:\.(\d{1,9}))?s$/;

/** A protobuf Duration in JSON (`"30s"`, `"1.5s"`) in seconds; undefined when malformed. */
export function parseDurationSeconds(text: string): number | undefined {
  if (text.length > 40) return undefined;
  const match = DURATION.exec(text);
  return match ? Number(text.slice(0, -1)) : undefined;
}

/** A Duration that is well formed and within `range`, in seconds; undefined otherwise. */
export function durationInRange(text: string, range: DurationRange): number | undefined {
  const seconds = parseDurationSeconds(text);
  return seconds !== undefined && inDurationRange(seconds, range) ? seconds : undefined;
}

/**
 * A stored body's Duration, in seconds within `range`: bodies saved before the ranges existed may
 * hold "0s" or "99999999999999s", and the timers built from them must neither fire at once nor overflow.
 */
export function storedDurationSeconds(value: unknown, range: DurationRange): number | undefined {
  const digits = typeof value === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(value) : null;
  if (!digits) return undefined;
  const seconds = Number(digits[1]);
  return seconds > 0 ? clampToDurationRange(seconds, range) : undefined;
}
