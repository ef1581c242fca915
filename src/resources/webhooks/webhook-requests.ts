import { z } from 'zod';

/** `POST /v1/webhook-endpoints`, `PATCH /v1/webhook-endpoints/{id}` and friends. */

const names = (field: string) =>
  z
    .array(
      z
        .string()
        .regex(/^[a-zA-Z0-9_-]{1,64}$/, `each of ${field} must be a name (letters, digits, _ and -, at most 64)`),
    )
    .min(1, `${field} must name at least one; leave it out (or null) for all`)
    .max(64, `${field} may name at most 64`);

const endpointFields = {
  url: z
    .string()
    .max(2048, 'url must be at most 2048 characters')
    .describe('http or https; checked by the egress guard.'),
  event_types: z
    .array(z.string().max(100))
    .min(1, 'event_types must name at least one event type, or be ["*"]')
    .max(20)
    .describe(
      'Event types, or ["*"] for all: tool_call.pending, tool_call.resolved, turn.completed, turn.failed, ' +
        'turn.requires_action, response.completed, response.failed, endpoint.disabled.',
    ),
  agents: names('agents').nullable().describe('Only events of these agents (absent or null: all).'),
  tools: names('tools')
    .nullable()
    .describe('Only call events of these tools (absent or null: all); turn events always pass.'),
  description: z.string().max(500).nullable(),
  include_arguments: z.boolean().describe("Whether call events carry the call's arguments (default false)."),
  enabled: z.boolean(),
};

export const createEndpointRequest = z
  .object({
    url: endpointFields.url,
    event_types: endpointFields.event_types.optional().describe('Default ["*"].'),
    agents: endpointFields.agents.optional(),
    tools: endpointFields.tools.optional(),
    description: endpointFields.description.optional(),
    include_arguments: endpointFields.include_arguments.optional(),
    enabled: endpointFields.enabled.optional().describe('Default true.'),
  })
  .strict();

export const updateEndpointRequest = z
  .object({
    url: endpointFields.url.optional(),
    event_types: endpointFields.event_types.optional(),
    agents: endpointFields.agents.optional(),
    tools: endpointFields.tools.optional(),
    description: endpointFields.description.optional(),
    include_arguments: endpointFields.include_arguments.optional(),
    enabled: endpointFields.enabled
      .optional()
      .describe('true re-enables an endpoint Baton disabled, and forgets its failures.'),
  })
  .strict();

/** A rotation keeps the old secret signing for up to 7 days (default one day). */
export const MAX_SECRET_GRACE_SECONDS = 7 * 24 * 3600;
export const DEFAULT_SECRET_GRACE_SECONDS = 24 * 3600;

export const rotateSecretRequest = z
  .object({
    grace_seconds: z
      .number()
      .int('grace_seconds must be a whole number of seconds')
      .min(0, 'grace_seconds must be at least 0')
      .max(MAX_SECRET_GRACE_SECONDS, `grace_seconds must be at most ${MAX_SECRET_GRACE_SECONDS} (7 days)`)
      .optional()
      .describe('How long the old secret keeps signing beside the new one (default 86400, one day).'),
  })
  .strict();

export const listDeliveriesQuery = z
  .object({
    limit: z.coerce.number().int().min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').optional(),
    after: z.string().max(500).optional().describe('The next_cursor of the previous page.'),
  })
  .strict();
