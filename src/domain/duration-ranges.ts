import { z } from 'zod';

/** The accepted values of one duration input, inclusive, in `unit`. */
export interface DurationRange {
  readonly min: number;
  readonly max: number;
  readonly unit: 'hours' | 'seconds' | 'milliseconds';
  /** The maximum in words, for messages and the README. */
  readonly maxInWords: string;
}

/**
 * Every duration a request or the configuration may give, in one place. The schemas and rules that
 * read a duration take their bounds from here, and the README's table lists them. Without a bound a
 * value such as 1e308 seconds passes validation and then breaks a date or a timer later (a 502, or
 * a deadline that cannot be stored); a millisecond is the smallest step a timer can tell from zero.
 */
export const DURATION_RANGES = {
  /**
   * How long a call the client runs may stay pending before its deadline and timeout policy apply:
   * an agent's `tool_timeout_seconds`, a tool's `timeout_seconds`, a message's
   * `tool_timeout_seconds`, a clientFunction Tool's `timeout`. A person may be the one answering.
   */
  pendingCall: { min: 0.001, max: 2_592_000, unit: 'seconds', maxInWords: '30 days' },
  /**
   * How long Baton lets one call of a tool it runs itself take: a Tool's or Toolset's `timeout`
   * for jsFunction, OpenAPI and MCP tools; a call runs with at most the operator's
   * `tools.max_timeout_seconds` (60 s by default), whatever it says.
   */
  serverToolRun: { min: 0.001, max: 600, unit: 'seconds', maxInWords: '10 minutes' },
  /** `engine.stale_turn_seconds`: how long a running turn may go without a sign of life. */
  staleTurn: { min: 3, max: 86_400, unit: 'seconds', maxInWords: '1 day' },
  /** `server.idempotency_lease_seconds`: how long a dead process's Idempotency-Key stays held. */
  idempotencyLease: { min: 1, max: 600, unit: 'seconds', maxInWords: '10 minutes' },
  /**
   * `server.idempotency_key_ttl_hours`: how long an Idempotency-Key replays its response. At least
   * an hour, which is as long as a request's lease is renewed (src/server/idempotency.ts).
   */
  idempotencyKeyTtl: { min: 1, max: 720, unit: 'hours', maxInWords: '30 days' },
  /** `engine.sweep_interval_ms`: how often the sweeper applies deadlines. */
  sweepInterval: { min: 10, max: 600_000, unit: 'milliseconds', maxInWords: '10 minutes' },
} as const satisfies Record<string, DurationRange>;

/** Whether `value` is a finite number within `range`. */
export function inDurationRange(value: number, range: DurationRange): boolean {
  return Number.isFinite(value) && value >= range.min && value <= range.max;
}

/** "a number of seconds from 0.001 to 600 (10 minutes)": what a message says a field must be. */
export function describeDurationRange(range: DurationRange): string {
  return `a number of ${range.unit} from ${range.min} to ${range.max} (${range.maxInWords})`;
}

/**
 * A stored value brought into `range`: rows written before the ranges existed may hold anything,
 * and a timer or a date built from them must not overflow.
 */
export function clampToDurationRange(value: number, range: DurationRange): number {
  if (Number.isNaN(value)) return range.max;
  return Math.min(Math.max(value, range.min), range.max);
}

/**
 * A zod number in `range` (JSON has no NaN or Infinity, but 1e308 and 1e999, which parses to
 * Infinity, are numbers). The message says the range; `parseRequest` prefixes the field.
 */
export function durationNumber(
  range: DurationRange,
  options: { coerce?: boolean; integer?: boolean; nullMeans?: string } = {},
) {
  const orNull = options.nullMeans === undefined ? '' : `, or null ${options.nullMeans}`;
  const message = `must be ${describeDurationRange(range)}${orNull}`;
  const base = options.coerce ? z.coerce.number({ error: message }) : z.number({ error: message });
  const whole = options.integer ? base.int({ error: `${message}, a whole number` }) : base;
  return whole.min(range.min, { error: message }).max(range.max, { error: message });
}
