import { z } from 'zod';
import { BatonError } from './errors/baton-error.ts';

/**
 * Retention policies (issue 21): how long an app, or one of its agents, keeps idle conversations
 * and the arguments and results of tool calls. The app sets one in its settings (CES App
 * `retention`), an agent in its definition (`retention` on the native wire and in baton.yaml);
 * an agent's field, when set, overrides the app's field of the same name.
 */
export interface RetentionPolicy {
  /** Delete a conversation this many days after its last activity (no running turn, no pending call). */
  conversationsAfterDays?: number;
  /** Remove tool arguments and results this many days after the call resolved (state and timestamps stay). */
  toolDataAfterDays?: number;
}

export const RETENTION_MAX_DAYS = 3650;

export const RETENTION_FIELDS = ['conversationsAfterDays', 'toolDataAfterDays'] as const;
export type RetentionField = (typeof RETENTION_FIELDS)[number];

/** The snake_case spelling of each field (agents on the native wire and in baton.yaml). */
export const RETENTION_WIRE_NAMES: Record<RetentionField, string> = {
  conversationsAfterDays: 'conversations_after_days',
  toolDataAfterDays: 'tool_data_after_days',
};

/** Whether `value` is a retention duration: a whole number of days from 1 to 3650. */
export function isRetentionDays(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= RETENTION_MAX_DAYS;
}

function describeDays(value: unknown): string {
  return `must be a whole number of days from 1 to ${RETENTION_MAX_DAYS} (got ${JSON.stringify(value) ?? String(value)})`;
}

/** The 400 of a bad duration, naming the field as the client wrote it (`retention.tool_data_after_days`). */
export function invalidRetention(field: string, value: unknown): BatonError {
  return new BatonError('invalid_retention', `${field} ${describeDays(value)}.`, { param: field });
}

/**
 * A zod duration field. Anything but a whole number of days from 1 to 3650 (0, -1, 1.5, 3651, "30")
 * fails with `invalid_retention` (`parseRequest` takes the code from the issue's params); the
 * JSON Schema says integer, 1 to 3650.
 */
export function retentionDays(description: string) {
  // `unknown` refined, not `z.custom`: a custom type has no JSON Schema, and every request schema
  // must convert to one (the API document, editors' baton.schema.json). Records are built by
  // `checkRetention`, which narrows the value to a number.
  return z
    .unknown()
    .superRefine((value, context) => {
      if (!isRetentionDays(value))
        context.addIssue({ code: 'custom', message: describeDays(value), params: { code: 'invalid_retention' } });
    })
    .meta({ type: 'integer', minimum: 1, maximum: RETENTION_MAX_DAYS, description }) as unknown as z.ZodType<number>;
}

const CONVERSATIONS_DESCRIPTION =
  'Delete a conversation this many days after its last activity, once it has no running turn and no pending call.';
const TOOL_DATA_DESCRIPTION =
  "Remove tool calls' arguments and results this many days after they resolved; the call's state and timestamps stay.";

/** `retention` as agents write it (native wire, baton.yaml): snake_case. */
export const retentionWireSchema = z
  .strictObject({
    conversations_after_days: retentionDays(CONVERSATIONS_DESCRIPTION).optional(),
    tool_data_after_days: retentionDays(TOOL_DATA_DESCRIPTION).optional(),
  })
  .describe("Retention policy: whole days from 1 to 3650; each field set here overrides the app's.");

/** `retention` as the CES App writes it: lowerCamelCase (snake_case is accepted as proto names are). */
export const retentionSettingsSchema = z
  .strictObject({
    conversationsAfterDays: retentionDays(CONVERSATIONS_DESCRIPTION).optional(),
    toolDataAfterDays: retentionDays(TOOL_DATA_DESCRIPTION).optional(),
  })
  .describe(
    "Baton's retention policy of the app's data: whole days from 1 to 3650; an agent's own fields override these.",
  );

/**
 * Checks a policy given as a record (`camel`: the record's spelling, `wire`: snake_case); a bad
 * value throws `invalid_retention` naming `${prefix}.${field}`. Absent fields stay absent.
 */
export function checkRetention(value: unknown, prefix: string, spelling: 'camel' | 'wire'): RetentionPolicy {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new BatonError('invalid_retention', `${prefix} must be an object of whole numbers of days.`, {
      param: prefix,
    });
  const given = value as Record<string, unknown>;
  const policy: RetentionPolicy = {};
  for (const field of RETENTION_FIELDS) {
    const name = spelling === 'camel' ? field : RETENTION_WIRE_NAMES[field];
    const days = given[name];
    if (days === undefined) continue;
    if (!isRetentionDays(days)) throw invalidRetention(`${prefix}.${name}`, days);
    policy[field] = days;
  }
  return policy;
}

/** A stored policy read leniently (an app's settings): fields that are not valid durations are ignored. */
export function readRetention(value: unknown): RetentionPolicy {
  if (typeof value !== 'object' || value === null) return {};
  const given = value as Record<string, unknown>;
  const policy: RetentionPolicy = {};
  for (const field of RETENTION_FIELDS) if (isRetentionDays(given[field])) policy[field] = given[field];
  return policy;
}

export function retentionFromWire(wire: z.infer<typeof retentionWireSchema>): RetentionPolicy {
  return checkRetention(wire, 'retention', 'wire');
}

export function retentionToWire(policy: RetentionPolicy): z.infer<typeof retentionWireSchema> {
  const wire: z.infer<typeof retentionWireSchema> = {};
  if (policy.conversationsAfterDays !== undefined) wire.conversations_after_days = policy.conversationsAfterDays;
  if (policy.toolDataAfterDays !== undefined) wire.tool_data_after_days = policy.toolDataAfterDays;
  return wire;
}
