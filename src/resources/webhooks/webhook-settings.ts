import { z } from 'zod';

/** How the delivery worker sends (`webhooks:` in baton.yaml). */
export interface WebhookSettings {
  /** One attempt's deadline: connect, headers and body. */
  timeoutMs: number;
  /** The waits before each retry; after the last one a delivery is failed. */
  retryScheduleMs: readonly number[];
  /** An endpoint failing without a success for this long is disabled. */
  disableAfterMs: number;
  /** How often the worker looks for new events and due retries. */
  pollIntervalMs: number;
  /** Deliveries in flight in this process, over all endpoints. */
  maxConcurrent: number;
  /** Deliveries in flight in this process to one endpoint: a slow endpoint holds only these. */
  maxPerEndpoint: number;
}

/** 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, 12 h: eight attempts over about 19 h 13 min, then failed. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 30, 120, 600, 3_600, 21_600, 43_200];

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  timeoutMs: 10_000,
  retryScheduleMs: DEFAULT_RETRY_SCHEDULE_SECONDS.map((seconds) => seconds * 1000),
  disableAfterMs: 5 * 24 * 3600 * 1000,
  pollIntervalMs: 500,
  maxConcurrent: 64,
  maxPerEndpoint: 4,
};

/** Bytes of an answer read (the rest is dropped) and characters of it kept with the delivery. */
export const MAX_RESPONSE_BYTES = 4 * 1024;
export const RESPONSE_EXCERPT_CHARS = 200;
/** Each wait is stretched or shrunk by up to this fraction, so retries of many deliveries spread out. */
export const RETRY_JITTER = 0.2;

/** `webhooks:` in baton.yaml. */
export const webhookSettingsFileSchema = z
  .object({
    timeout_seconds: z.coerce
      .number()
      .min(0.1)
      .max(60)
      .optional()
      .meta({
        description: 'How long one delivery attempt may take (connect, headers and body), in seconds.',
        default: DEFAULT_WEBHOOK_SETTINGS.timeoutMs / 1000,
      }),
    retry_schedule_seconds: z
      .array(
        z.coerce
          .number()
          .min(0)
          .max(7 * 24 * 3600),
      )
      .max(20)
      .optional()
      .meta({
        description:
          'The waits before each retry of a failed delivery (each ±20% jitter), in seconds; after the last, the delivery is failed.',
        default: [...DEFAULT_RETRY_SCHEDULE_SECONDS],
      }),
    disable_after_hours: z.coerce
      .number()
      .min(0)
      .max(24 * 90)
      .optional()
      .meta({
        description:
          'An endpoint whose deliveries all failed for this long is disabled (with an endpoint.disabled event), in hours.',
        default: DEFAULT_WEBHOOK_SETTINGS.disableAfterMs / 3_600_000,
      }),
    max_concurrent: z.coerce.number().int().min(1).max(1024).optional().meta({
      description: 'Deliveries in flight per process, over all endpoints.',
      default: DEFAULT_WEBHOOK_SETTINGS.maxConcurrent,
    }),
    max_per_endpoint: z.coerce.number().int().min(1).max(64).optional().meta({
      description: 'Deliveries in flight per process to one endpoint: a slow endpoint holds only these.',
      default: DEFAULT_WEBHOOK_SETTINGS.maxPerEndpoint,
    }),
  })
  .strict()
  .describe('Webhook delivery: timeouts, the retry schedule, when a failing endpoint is disabled.');

/** The settings the file gives, defaults for the rest. */
export function webhookSettingsFrom(file: z.infer<typeof webhookSettingsFileSchema> | undefined): WebhookSettings {
  const defaults = DEFAULT_WEBHOOK_SETTINGS;
  return {
    ...defaults,
    timeoutMs: file?.timeout_seconds !== undefined ? Math.round(file.timeout_seconds * 1000) : defaults.timeoutMs,
    retryScheduleMs:
      file?.retry_schedule_seconds?.map((seconds) => Math.round(seconds * 1000)) ?? defaults.retryScheduleMs,
    disableAfterMs:
      file?.disable_after_hours !== undefined ? file.disable_after_hours * 3_600_000 : defaults.disableAfterMs,
    maxConcurrent: file?.max_concurrent ?? defaults.maxConcurrent,
    maxPerEndpoint: file?.max_per_endpoint ?? defaults.maxPerEndpoint,
  };
}
