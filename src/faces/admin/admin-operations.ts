import { z } from 'zod';
import { createKeyRequest, listKeysQuery, rotateKeyRequest } from '../../resources/keys/key-requests.ts';
import { createAppRequest } from '../../resources/apps/tenant-service.ts';
import type { ApiOperation } from '../kit/api-operation.ts';
import { NATIVE_ERRORS } from '../kit/error-body-schemas.ts';
import { apiKeySchema, createdAppSchema, issuedKeySchema, principalSchema } from './admin-view-schemas.ts';

const tag = 'Apps and keys';
const keyId = { id: 'The key id (`key_…`).' };

/** Apps (tenants) and API keys (admin-routes.ts), for the API document. */
export const ADMIN_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'POST',
    route: '/v1/apps',
    operationId: 'createApp',
    summary: 'Create an app',
    description: 'A tenant, with its first key: an admin of this app only.',
    tag,
    body: { schema: createAppRequest },
    responses: { 201: { description: 'The app and its first key.', schema: createdAppSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/me',
    operationId: 'getPrincipal',
    summary: 'Who this key is',
    description: "The key's app (with its CES resource name) and role.",
    tag,
    responses: { 200: { description: 'The key and its app.', schema: principalSchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'Keys are stored hashed; the secret is in this answer only. `app_id` lets an operator mint a key of another app.',
    tag,
    body: { schema: createKeyRequest, optional: true },
    responses: { 201: { description: 'The key, with its secret.', schema: issuedKeySchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/v1/api-keys',
    operationId: 'listApiKeys',
    summary: 'List API keys',
    tag,
    query: listKeysQuery,
    responses: {
      200: {
        description: "The app's keys, revoked ones included.",
        schema: z.object({ object: z.literal('list'), data: z.array(apiKeySchema) }),
      },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'DELETE',
    route: '/v1/api-keys/:id',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    tag,
    pathParams: keyId,
    query: listKeysQuery,
    responses: { 200: { description: 'The revoked key.', schema: apiKeySchema } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'POST',
    route: '/v1/api-keys/:id/rotate',
    operationId: 'rotateApiKey',
    summary: 'Rotate an API key',
    description: 'A new key with the same role; the old one keeps working for `grace_seconds` (default one day).',
    tag,
    pathParams: keyId,
    query: listKeysQuery,
    body: { schema: rotateKeyRequest, optional: true },
    responses: {
      201: {
        description: 'The new key, with its secret, and the key it replaces.',
        schema: issuedKeySchema.extend({ replaces: apiKeySchema }),
      },
    },
    errors: NATIVE_ERRORS,
  },
];
