import { z } from 'zod';
import { API_KEY_ROLES } from '../../domain/access.ts';
import type { ApiKeyRole } from '../../domain/records.ts';

/** A key lives at most five years; rotate long-lived keys instead of minting eternal ones. */
export const MAX_KEY_LIFETIME_SECONDS = 5 * 365 * 24 * 3600;
/** A rotation keeps the old key working for up to 30 days (default one day) while callers switch. */
export const MAX_ROTATION_GRACE_SECONDS = 30 * 24 * 3600;
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600;

const roleSchema = z.enum(API_KEY_ROLES as [ApiKeyRole, ...ApiKeyRole[]]);
const lifetimeSchema = z
  .number()
  .int('expires_in_seconds must be a whole number of seconds')
  .min(60, 'expires_in_seconds must be at least 60')
  .max(MAX_KEY_LIFETIME_SECONDS, `expires_in_seconds must be at most ${MAX_KEY_LIFETIME_SECONDS} (five years)`);

/** `POST /v1/api-keys`: `app_id` lets an operator mint a key of another app. */
export const createKeyRequest = z
  .object({
    name: z.string().max(200).optional(),
    role: roleSchema.optional(),
    expires_in_seconds: lifetimeSchema.optional(),
    app_id: z.string().min(1).max(200).optional(),
    /** A worker key: restricted to claiming and answering calls of these tools (docs/tool-workers.md). */
    tools: z
      .array(
        z
          .string()
          .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'each of tools must be a tool name (letters, digits, _ and -, at most 64)'),
      )
      .min(1, 'tools must name at least one tool; leave it out for a key that is not a worker key')
      .max(64, 'tools may name at most 64 tools')
      .optional(),
  })
  .strict();

/** `POST /v1/api-keys/{id}/rotate`. */
export const rotateKeyRequest = z
  .object({
    grace_seconds: z
      .number()
      .int('grace_seconds must be a whole number of seconds')
      .min(0, 'grace_seconds must be at least 0')
      .max(MAX_ROTATION_GRACE_SECONDS, `grace_seconds must be at most ${MAX_ROTATION_GRACE_SECONDS} (30 days)`)
      .optional(),
    expires_in_seconds: lifetimeSchema.optional(),
  })
  .strict();

/** `GET /v1/api-keys?app_id=`. */
export const listKeysQuery = z.object({ app_id: z.string().min(1).max(200).optional() }).strict();
