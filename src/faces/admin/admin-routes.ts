import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import {
  createApiKey,
  DEFAULT_LOCATION,
  DEFAULT_PROJECT,
  generateApiKeySecret,
  newAppRecord,
} from '../../resources/keys/api-keys.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { appResourceName } from '../../resources/apps/app-access.ts';
import type { Principal } from '../../domain/principal.ts';
import { parseRequest } from '../../domain/parse-request.ts';

const createAppBody = z
  .object({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'names must match ^[a-zA-Z0-9_-]{1,64}$') })
  .strict();
const createKeyBody = z
  .object({ name: z.string().max(200).optional(), role: z.enum(['admin', 'member']).optional() })
  .strict();

function requireAdmin(principal: Principal): void {
  if (principal.role !== 'admin') {
    throw new BatonError('admin_key_required', 'This endpoint needs an admin API key.');
  }
}

/** Apps (tenants) and API keys. Keys are shown once, at creation; only their hash is stored. */
export function registerAdminRoutes(app: FastifyInstance, face: FaceContext): void {
  app.post('/v1/apps', async (request, reply) => {
    requireAdmin(request.principal);
    const body = parseRequest(createAppBody, request.body);
    if (await face.store.apps.getByName(body.name)) {
      throw new BatonError('app_exists', `An app named '${body.name}' already exists.`, { param: 'name' });
    }
    // A new app joins the project of the key that creates it (admin keys manage their project).
    const creator = await face.store.apps.get(request.principal.appId);
    const record = newAppRecord(
      body.name,
      creator?.project ?? DEFAULT_PROJECT,
      creator?.location ?? DEFAULT_LOCATION,
      new Date().toISOString(),
    );
    await face.store.apps.insert(record);
    const secret = generateApiKeySecret();
    const key = await createApiKey(face.store, record.id, secret, 'admin', `first key of ${body.name}`);
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
    const { appId, keyId, role } = request.principal;
    const record = await face.store.apps.get(appId);
    if (!record)
      throw new BatonError('app_deleted', 'The app of this API key no longer exists; use a key of another app.');
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
    requireAdmin(request.principal);
    const body = parseRequest(createKeyBody, request.body);
    const secret = generateApiKeySecret();
    const key = await createApiKey(
      face.store,
      request.principal.appId,
      secret,
      body.role ?? 'member',
      body.name ?? null,
    );
    return reply
      .status(201)
      .send({ object: 'api_key', id: key.id, key: secret, role: key.role, name: key.name, created_at: key.createdAt });
  });
}
