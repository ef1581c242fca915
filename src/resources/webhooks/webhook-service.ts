import { requireCapability } from '../../domain/access.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { newId } from '../../domain/ids.ts';
import type { Page } from '../../domain/page.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import type { Principal } from '../../domain/principal.ts';
import { isWebhookEventType, type WebhookDeliveryRecord, type WebhookEndpointRecord } from '../../domain/webhooks.ts';
import type { Store } from '../../store/store.ts';
import type { EgressPolicy } from '../../tools/http/address-policy.ts';
import type { ServerKeys } from '../keys/server-keys.ts';
import {
  createEndpointRequest,
  DEFAULT_SECRET_GRACE_SECONDS,
  listDeliveriesQuery,
  rotateSecretRequest,
  updateEndpointRequest,
} from './webhook-requests.ts';
import { generateWebhookSecret, sealWebhookSecret } from './webhook-secrets.ts';
import { checkWebhookUrl } from './webhook-url.ts';

/** An endpoint with its signing secret, shown this once (creation, rotation). */
export interface IssuedEndpoint {
  endpoint: WebhookEndpointRecord;
  secret: string;
}

/**
 * Webhook endpoints as app resources (an app admin's): created with a secret shown once, listed,
 * edited, enabled and disabled, deleted, their secret rotated with a grace period; and their
 * deliveries listed and re-sent. Another app's endpoint is not found.
 */
export class WebhookService {
  constructor(
    private readonly store: Store,
    private readonly keys: Pick<ServerKeys, 'secrets'>,
    private readonly egress: EgressPolicy,
  ) {}

  async create(principal: Principal, request: unknown): Promise<IssuedEndpoint> {
    requireCapability(principal, 'manage', 'Creating webhook endpoints');
    const body = parseRequest(createEndpointRequest, request);
    const eventTypes = checkEventTypes(body.event_types ?? ['*']);
    const url = await checkWebhookUrl(body.url, this.egress);
    const id = newId('whep');
    const secret = generateWebhookSecret();
    const now = new Date().toISOString();
    const endpoint: WebhookEndpointRecord = {
      id,
      appId: principal.appId,
      url,
      description: body.description ?? null,
      eventTypes,
      agents: body.agents ?? null,
      tools: body.tools ?? null,
      includeArguments: body.include_arguments ?? false,
      enabled: body.enabled ?? true,
      secretCiphertext: sealWebhookSecret(this.keys, principal.appId, id, secret),
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.webhooks.insertEndpoint(endpoint);
    return { endpoint, secret };
  }

  async list(principal: Principal): Promise<WebhookEndpointRecord[]> {
    requireCapability(principal, 'manage', 'Listing webhook endpoints');
    return this.store.webhooks.listEndpoints(principal.appId);
  }

  async get(principal: Principal, id: string): Promise<WebhookEndpointRecord> {
    requireCapability(principal, 'manage', 'Reading webhook endpoints');
    return this.endpointOf(principal.appId, id);
  }

  async update(principal: Principal, id: string, request: unknown): Promise<WebhookEndpointRecord> {
    requireCapability(principal, 'manage', 'Changing webhook endpoints');
    const body = parseRequest(updateEndpointRequest, request);
    const current = await this.endpointOf(principal.appId, id);
    const eventTypes = body.event_types === undefined ? undefined : checkEventTypes(body.event_types);
    const url = body.url === undefined ? undefined : await checkWebhookUrl(body.url, this.egress);
    const enabling = body.enabled === true && !current.enabled;
    const updated = await this.store.webhooks.updateEndpoint(principal.appId, id, {
      ...(url === undefined ? {} : { url }),
      ...(eventTypes === undefined ? {} : { eventTypes }),
      ...(body.agents === undefined ? {} : { agents: body.agents }),
      ...(body.tools === undefined ? {} : { tools: body.tools }),
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.include_arguments === undefined ? {} : { includeArguments: body.include_arguments }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
      // Enabled again by hand: its failures are forgiven, and it is not Baton's doing any more.
      ...(enabling ? { failingSince: null, disabledReason: null } : {}),
      updatedAt: new Date().toISOString(),
    });
    if (!updated) throw notFound(id);
    return updated;
  }

  async delete(principal: Principal, id: string): Promise<WebhookEndpointRecord> {
    requireCapability(principal, 'manage', 'Deleting webhook endpoints');
    const current = await this.endpointOf(principal.appId, id);
    if (!(await this.store.webhooks.deleteEndpoint(principal.appId, id))) throw notFound(id);
    return current;
  }

  /** A new secret; the old one keeps signing (a second signature) for `grace_seconds`. */
  async rotateSecret(principal: Principal, id: string, request: unknown): Promise<IssuedEndpoint> {
    requireCapability(principal, 'manage', 'Rotating webhook secrets');
    const body = parseRequest(rotateSecretRequest, request);
    const current = await this.endpointOf(principal.appId, id);
    const grace = body.grace_seconds ?? DEFAULT_SECRET_GRACE_SECONDS;
    const secret = generateWebhookSecret();
    const now = Date.now();
    const updated = await this.store.webhooks.updateEndpoint(principal.appId, id, {
      secretCiphertext: sealWebhookSecret(this.keys, principal.appId, id, secret),
      previousSecretCiphertext: grace > 0 ? current.secretCiphertext : null,
      previousSecretExpiresAt: grace > 0 ? new Date(now + grace * 1000).toISOString() : null,
      updatedAt: new Date(now).toISOString(),
    });
    if (!updated) throw notFound(id);
    return { endpoint: updated, secret };
  }

  async listDeliveries(principal: Principal, id: string, query: unknown): Promise<Page<WebhookDeliveryRecord>> {
    requireCapability(principal, 'manage', 'Listing webhook deliveries');
    const { limit, after } = parseRequest(listDeliveriesQuery, query, 'query');
    await this.endpointOf(principal.appId, id);
    return this.store.webhooks.listDeliveries(principal.appId, id, { limit: limit ?? 20, cursor: after ?? null });
  }

  /** Sends a delivery again now, from the start of the retry schedule. */
  async resend(principal: Principal, id: string, deliveryId: string): Promise<WebhookDeliveryRecord> {
    requireCapability(principal, 'manage', 'Re-sending webhook deliveries');
    await this.endpointOf(principal.appId, id);
    const resent = await this.store.webhooks.resendDelivery(principal.appId, id, deliveryId, new Date().toISOString());
    // The delivery workers (of every replica) look at once: one may have stopped looking for pending deliveries.
    if (resent) this.store.signals.publish('webhook-events', principal.appId);
    if (!resent && (await this.store.webhooks.getDelivery(principal.appId, id, deliveryId)))
      throw new BatonError(
        'webhook_delivery_in_flight',
        `Delivery '${deliveryId}' is being sent right now; its outcome shows in GET /v1/webhook-endpoints/${id}/deliveries in a moment. ` +
          'Resend it once it has failed or succeeded.',
        { param: 'delivery' },
      );
    if (!resent)
      throw new BatonError(
        'webhook_delivery_not_found',
        `Delivery '${deliveryId}' is not one of webhook endpoint '${id}'; list them with GET /v1/webhook-endpoints/${id}/deliveries.`,
        { param: 'delivery' },
      );
    return resent;
  }

  private async endpointOf(appId: string, id: string): Promise<WebhookEndpointRecord> {
    const endpoint = await this.store.webhooks.getEndpoint(appId, id);
    if (!endpoint) throw notFound(id);
    return endpoint;
  }
}

function notFound(id: string): BatonError {
  return new BatonError(
    'webhook_endpoint_not_found',
    `Webhook endpoint '${id}' was not found in this app; list them with GET /v1/webhook-endpoints.`,
    { param: 'id' },
  );
}

/** Known event types, each once, or `['*']`; an unknown one is refused by its index. */
function checkEventTypes(types: readonly string[]): string[] {
  if (types.includes('*')) {
    if (types.length > 1)
      throw new BatonError(
        'unknown_webhook_event_type',
        'event_types is ["*"] (every event) or a list of event types, not both.',
        {
          param: 'event_types',
        },
      );
    return ['*'];
  }
  types.forEach((type, index) => {
    if (!isWebhookEventType(type))
      throw new BatonError(
        'unknown_webhook_event_type',
        `event_types[${index}] '${type.slice(0, 100)}' is not an event Baton sends; use tool_call.pending, tool_call.resolved, ` +
          'turn.completed, turn.failed, turn.requires_action, response.completed, response.failed, endpoint.disabled, or ["*"].',
        { param: `event_types[${index}]` },
      );
  });
  return [...new Set(types)];
}
