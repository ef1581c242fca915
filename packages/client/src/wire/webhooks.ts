/** Webhook endpoints, their deliveries and the events Baton sends them. Mirrors src/faces/webhooks/webhook-views.ts. */

/** The events an endpoint may ask for (`['*']`: every one). */
export type WebhookEventType =
  | 'tool_call.pending'
  | 'tool_call.resolved'
  | 'turn.completed'
  | 'turn.failed'
  | 'turn.requires_action'
  | 'response.completed'
  | 'response.failed'
  | 'endpoint.disabled';

/** A webhook endpoint as the API shows it: never with its secret. */
export interface WebhookEndpoint {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  description: string | null;
  /** Event types, or `['*']` for every one. */
  event_types: string[];
  /** Only events of these agents (null: all). */
  agents: string[] | null;
  /** Only call events of these tools (null: all); turn events always pass. */
  tools: string[] | null;
  /** Whether call events carry the call's arguments. */
  include_arguments: boolean;
  enabled: boolean;
  /** Why Baton disabled it (its deliveries kept failing); null when enabled or disabled by hand. */
  disabled_reason: string | null;
  /** Since when its deliveries fail without a success in between (null: healthy). */
  failing_since: string | null;
  /** While a rotated-out secret still signs deliveries (a second signature), until when. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An endpoint just created, or its secret just rotated: the signing secret (`whsec_…`) is shown this once. */
export interface IssuedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

/** `DELETE /v1/webhook-endpoints/{id}`: the endpoint as it was. */
export interface DeletedWebhookEndpoint extends WebhookEndpoint {
  deleted: true;
}

/** `POST /v1/webhook-endpoints`. */
export interface WebhookEndpointCreateBody {
  /** http or https; a loopback or private address is refused unless the server's `egress.allow` lists it. */
  url: string;
  /** Default `['*']`. */
  event_types?: Array<WebhookEventType | '*'>;
  /** Only events of these agents (absent or null: all). */
  agents?: string[] | null;
  /** Only call events of these tools (absent or null: all). */
  tools?: string[] | null;
  description?: string | null;
  /** Whether call events carry the call's arguments (default false). */
  include_arguments?: boolean;
  /** Default true. */
  enabled?: boolean;
}

/** `PATCH /v1/webhook-endpoints/{id}`: the fields given change; `enabled: true` re-enables one Baton disabled. */
export type WebhookEndpointUpdateBody = Partial<WebhookEndpointCreateBody>;

/** `POST /v1/webhook-endpoints/{id}/rotate-secret`. */
export interface WebhookSecretRotateBody {
  /** How long the old secret keeps signing beside the new one: 0 to 7 days, default one day. */
  grace_seconds?: number;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event's delivery to one endpoint. */
export interface WebhookDelivery {
  object: 'webhook_delivery';
  id: string;
  endpoint_id: string;
  /** Also the `webhook-id` header: the same on every attempt, so receivers can drop repeats. */
  event_id: string;
  event_type: string;
  sequence: number;
  thread_id: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When the next attempt is due (pending deliveries only). */
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_code: number | null;
  /** A short excerpt of the last answer or error. */
  last_error: string | null;
  created_at: string;
}

/**
 * The body of a webhook request, once verified: Standard Webhooks' `{type, timestamp, data}` with
 * Baton's event id (the `webhook-id` header) and its sequence (the commit order, per thread too).
 */
export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: WebhookEventType;
  timestamp: string;
  sequence: number;
  data: D;
}
