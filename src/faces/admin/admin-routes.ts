import type { FastifyInstance } from 'fastify';
import { appResourceName } from '../../resources/index.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { issuedKeyView, keyView } from './key-views.ts';

/** Apps (tenants) and API keys. Keys are shown once, at creation; only their hash is stored. */
export function registerAdminRoutes(app: FastifyInstance, face: FaceContext): void {
  const { tenants, keys } = face.resources;

  app.post('/v1/apps', async (request, reply) => {
    const { app: record, key, secret } = await tenants.createApp(request.principal, request.body);
    return reply.status(201).send({
      object: 'app',
      id: record.id,
      name: record.name,
      created_at: record.createdAt,
      api_key: { id: key.id, key: secret, role: key.role },
    });
  });

  // Who a key is: what a console or CLI shows after sign-in, and the app's CES resource name.
  app.get('/v1/me', async (request) => {
    const { keyId, role } = request.principal;
    const record = await tenants.appOf(request.principal);
    return {
      object: 'principal',
      app: {
        id: record.id,
        name: record.name,
        project: record.project,
        location: record.location,
        resource_name: appResourceName(record),
      },
      key: { id: keyId, role },
    };
  });

  app.post('/v1/api-keys', async (request, reply) => {
    const { key, secret } = await keys.create(request.principal, request.body);
    return reply.status(201).send(issuedKeyView(key, secret));
  });

  app.get('/v1/api-keys', async (request) => {
    const records = await keys.list(request.principal, request.query);
    return { object: 'list', data: records.map(keyView) };
  });

  app.delete<{ Params: { id: string } }>('/v1/api-keys/:id', async (request) =>
    keyView(await keys.revoke(request.principal, request.params.id, request.query)),
  );

  app.post<{ Params: { id: string } }>('/v1/api-keys/:id/rotate', async (request, reply) => {
    const { key, secret, replaced } = await keys.rotate(
      request.principal,
      request.params.id,
      request.body,
      request.query,
    );
    return reply.status(201).send({ ...issuedKeyView(key, secret), replaces: keyView(replaced) });
  });
}
