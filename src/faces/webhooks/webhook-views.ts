import { z } from 'zod';
import type { Page } from '../../domain/page.ts';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../../domain/webhooks.ts';

/** Webhook endpoints and deliveries as the native API shows them: never a secret but at creation and rotation. */

export const webhookEndpointSchema = z
  .object({
    object: z.literal('webhook_endpoint'),
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    agents: z.array(z.string()).nullable(),
    tools: z.array(z.string()).nullable(),
    include_arguments: z.boolean(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().describe('Why Baton disabled the endpoint (its deliveries kept failing).'),
    failing_since: z.string().nullable(),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .describe('While a rotated-out secret still signs deliveries (a second signature), until when.'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const issuedEndpointSchema = webhookEndpointSchema
  .extend({ secret: z.string().describe('The signing secret (`whsec_…`), shown this once: store it now.') })
  .meta({ id: 'IssuedWebhookEndpoint' });

export const webhookDeliverySchema = z
  .object({
    object: z.literal('webhook_delivery'),
    id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string().describe('Also the `webhook-id` header: the same on every attempt.'),
    event_type: z.string(),
    sequence: z.number(),
    thread_id: z.string().nullable(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number(),
    next_attempt_at: z.string().nullable(),
    last_attempt_at: z.string().nullable(),
    last_response_code: z.number().nullable(),
    last_error: z
      .string()
      .nullable()
      .describe('A short excerpt of the last answer or error; bodies are never stored whole.'),
    created_at: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

export function endpointView(endpoint: WebhookEndpointRecord): z.infer<typeof webhookEndpointSchema> {
  return {
    object: 'webhook_endpoint',
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    event_types: endpoint.eventTypes,
    agents: endpoint.agents,
    tools: endpoint.tools,
    include_arguments: endpoint.includeArguments,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    failing_since: endpoint.failingSince,
    previous_secret_expires_at:
      endpoint.previousSecretExpiresAt !== null && Date.parse(endpoint.previousSecretExpiresAt) > Date.now()
        ? endpoint.previousSecretExpiresAt
        : null,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

export function deliveryView(delivery: WebhookDeliveryRecord): z.infer<typeof webhookDeliverySchema> {
  return {
    object: 'webhook_delivery',
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    sequence: delivery.eventSeq,
    thread_id: delivery.conversationId,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
    last_attempt_at: delivery.lastAttemptAt,
    last_response_code: delivery.lastResponseCode,
    last_error: delivery.lastError,
    created_at: delivery.createdAt,
  };
}

export function deliveryPageView(page: Page<WebhookDeliveryRecord>): Record<string, unknown> {
  return {
    object: 'list',
    data: page.data.map(deliveryView),
    next_cursor: page.nextCursor,
    has_more: page.nextCursor !== null,
  };
}
