import { z } from 'zod';
import {
  createEndpointRequest,
  listDeliveriesQuery,
  rotateSecretRequest,
  updateEndpointRequest,
} from '../../resources/webhooks/webhook-requests.ts';
import type { ApiOperation } from '../kit/api-operation.ts';
import { NATIVE_ERRORS } from '../kit/error-body-schemas.ts';
import { issuedEndpointSchema, webhookDeliverySchema, webhookEndpointSchema } from './webhook-views.ts';

const tag = 'Webhooks';
const endpointId = { id: 'The endpoint id (`whep_…`).' };

/** Webhook endpoints and deliveries (webhook-routes.ts), for the API document. */
export const WEBHOOK_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'POST',
    route: '/v1/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'Events of the app are POSTed to `url`, signed as Standard Webhooks says (`webhook-id`, `webhook-timestamp`, `webhook-signature`). ' +
      'The URL passes the egress guard: a loopback or private address is refused unless `egress.allow` lists it. The secret is in this answer only.',
    tag,
    body: { schema: createEndpointRequest },
    responses: { 201: { description: 'The endpoint, with its signing secret.', schema: issuedEndpointSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    tag,
    responses: {
      200: {
        description: "The app's endpoints, oldest first.",
        schema: z.object({ object: z.literal('list'), data: z.array(webhookEndpointSchema) }),
      },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/webhook-endpoints/:id',
    operationId: 'getWebhookEndpoint',
    summary: 'Get a webhook endpoint',
    tag,
    pathParams: endpointId,
    responses: { 200: { description: 'The endpoint.', schema: webhookEndpointSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'PATCH',
    route: '/v1/webhook-endpoints/:id',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description: 'The fields given change; `enabled: true` re-enables an endpoint Baton disabled.',
    tag,
    pathParams: endpointId,
    body: { schema: updateEndpointRequest },
    responses: { 200: { description: 'The endpoint as it now is.', schema: webhookEndpointSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'DELETE',
    route: '/v1/webhook-endpoints/:id',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Its pending deliveries are dropped.',
    tag,
    pathParams: endpointId,
    responses: {
      200: {
        description: 'The deleted endpoint.',
        schema: webhookEndpointSchema.extend({ deleted: z.literal(true) }).meta({ id: 'DeletedWebhookEndpoint' }),
      },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/webhook-endpoints/:id/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook endpoint's secret",
    description:
      'A new secret, shown once; the old one keeps signing, as a second signature in `webhook-signature`, for `grace_seconds` (default one day).',
    tag,
    pathParams: endpointId,
    body: { schema: rotateSecretRequest, optional: true },
    responses: { 200: { description: 'The endpoint, with its new secret.', schema: issuedEndpointSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/webhook-endpoints/:id/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "List a webhook endpoint's deliveries",
    description: 'Newest event first: status, attempts, last response code, when the next attempt is due.',
    tag,
    pathParams: endpointId,
    query: listDeliveriesQuery,
    responses: {
      200: {
        description: 'A page of deliveries.',
        schema: z.object({
          object: z.literal('list'),
          data: z.array(webhookDeliverySchema),
          next_cursor: z.string().nullable(),
          has_more: z.boolean(),
        }),
      },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/webhook-endpoints/:id/deliveries/:delivery/resend',
    operationId: 'resendWebhookDelivery',
    summary: 'Send a delivery again',
    description: 'Sent again at once, from the start of the retry schedule, with the same `webhook-id`.',
    tag,
    pathParams: { ...endpointId, delivery: 'The delivery id (`whdl_…`).' },
    responses: { 202: { description: 'The delivery, pending again.', schema: webhookDeliverySchema } },
    errors: NATIVE_ERRORS,
  },
];
