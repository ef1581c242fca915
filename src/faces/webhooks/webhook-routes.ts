import type { FastifyInstance } from 'fastify';
import type { FaceContext } from '../kit/face-context.ts';
import { deliveryPageView, deliveryView, endpointView } from './webhook-views.ts';

type EndpointParams = { Params: { id: string } };

/** Webhook endpoints (an app admin's), their secrets, shown once, and their deliveries. */
export function registerWebhookRoutes(app: FastifyInstance, face: FaceContext): void {
  const webhooks = face.resources.webhooks;

  app.post('/v1/webhook-endpoints', async (request, reply) => {
    const { endpoint, secret } = await webhooks.create(request.principal, request.body);
    return reply.status(201).send({ ...endpointView(endpoint), secret });
  });

  app.get('/v1/webhook-endpoints', async (request) => ({
    object: 'list',
    data: (await webhooks.list(request.principal)).map(endpointView),
  }));

  app.get<EndpointParams>('/v1/webhook-endpoints/:id', async (request) =>
    endpointView(await webhooks.get(request.principal, request.params.id)),
  );

  app.patch<EndpointParams>('/v1/webhook-endpoints/:id', async (request) =>
    endpointView(await webhooks.update(request.principal, request.params.id, request.body)),
  );

  app.delete<EndpointParams>('/v1/webhook-endpoints/:id', async (request) => ({
    ...endpointView(await webhooks.delete(request.principal, request.params.id)),
    deleted: true,
  }));

  app.post<EndpointParams>('/v1/webhook-endpoints/:id/rotate-secret', async (request) => {
    const { endpoint, secret } = await webhooks.rotateSecret(request.principal, request.params.id, request.body);
    return { ...endpointView(endpoint), secret };
  });

  app.get<EndpointParams>('/v1/webhook-endpoints/:id/deliveries', async (request) =>
    deliveryPageView(await webhooks.listDeliveries(request.principal, request.params.id, request.query)),
  );

  app.post<{ Params: { id: string; delivery: string } }>(
    '/v1/webhook-endpoints/:id/deliveries/:delivery/resend',
    async (request, reply) =>
      reply
        .status(202)
        .send(deliveryView(await webhooks.resend(request.principal, request.params.id, request.params.delivery))),
  );
}
