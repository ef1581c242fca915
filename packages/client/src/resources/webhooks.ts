import type { Transport } from '../http/transport.ts';
import type { Page } from '../wire/common.ts';
import type {
  DeletedWebhookEndpoint,
  IssuedWebhookEndpoint,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreateBody,
  WebhookEndpointUpdateBody,
  WebhookSecretRotateBody,
} from '../wire/webhooks.ts';
import { callSettings, type CallOptions } from './call-options.ts';

/**
 * `/v1/webhook-endpoints`: where Baton pushes the app's events (pending and resolved calls,
 * finished and paused turns), signed as Standard Webhooks says; check them with `verifyWebhook`.
 * App admin keys only. The signing secret is returned once, by `create` and `rotateSecret`.
 */
export class Webhooks {
  constructor(private readonly http: Transport) {}

  /** A new endpoint; keep `secret` from the answer, it is not shown again. */
  create(body: WebhookEndpointCreateBody, options?: CallOptions): Promise<IssuedWebhookEndpoint> {
    return this.http.json({ method: 'POST', path: '/v1/webhook-endpoints', body, ...callSettings(options) });
  }

  /** The app's endpoints, oldest first. */
  list(options?: CallOptions): Promise<{ object: 'list'; data: WebhookEndpoint[] }> {
    return this.http.json({ method: 'GET', path: '/v1/webhook-endpoints', ...callSettings(options) });
  }

  get(id: string, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.http.json({ method: 'GET', path: this.path(id), ...callSettings(options) });
  }

  /** Changes the fields given; `{ enabled: false }` pauses it, `{ enabled: true }` re-enables it (and forgets its failures). */
  update(id: string, body: WebhookEndpointUpdateBody, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.http.json({ method: 'PATCH', path: this.path(id), body, ...callSettings(options) });
  }

  /** Deletes the endpoint; its pending deliveries are dropped. */
  delete(id: string, options?: CallOptions): Promise<DeletedWebhookEndpoint> {
    return this.http.json({ method: 'DELETE', path: this.path(id), ...callSettings(options) });
  }

  /**
   * A new signing secret, shown once. The old one keeps signing beside it (a second signature in
   * `webhook-signature`) for `grace_seconds` (default one day), so receivers can switch unhurried.
   */
  rotateSecret(id: string, body: WebhookSecretRotateBody = {}, options?: CallOptions): Promise<IssuedWebhookEndpoint> {
    return this.http.json({
      method: 'POST',
      path: `${this.path(id)}/rotate-secret`,
      body,
      ...callSettings(options),
    });
  }

  /** The endpoint's deliveries, newest event first: status, attempts, last response code. */
  deliveries(
    id: string,
    query: { limit?: number; after?: string } = {},
    options?: CallOptions,
  ): Promise<Page<WebhookDelivery>> {
    return this.http.json({ method: 'GET', path: `${this.path(id)}/deliveries`, query, ...callSettings(options) });
  }

  /** Sends a delivery again now (same `webhook-id`), from the start of the retry schedule. */
  resend(id: string, deliveryId: string, options?: CallOptions): Promise<WebhookDelivery> {
    return this.http.json({
      method: 'POST',
      path: `${this.path(id)}/deliveries/${encodeURIComponent(deliveryId)}/resend`,
      ...callSettings(options),
    });
  }

  private path(id: string): string {
    return `/v1/webhook-endpoints/${encodeURIComponent(id)}`;
  }
}
