import { z } from 'zod';
import type { ApiOperation } from '../../faces/kit/api-operation.ts';
import { NATIVE_ERRORS } from '../../faces/kit/error-body-schemas.ts';

const tag = 'Operations';
const readiness = z.looseObject({
  ready: z.boolean(),
  problem: z.string().optional().describe('What keeps the replica from serving, when it is not ready.'),
});

/**
 * The server's own endpoints: probes, metrics and this document. An entry whose route a
 * deployment does not register (e.g. `/metrics` when it is off) is left out of its document.
 */
export const SERVER_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'GET',
    route: '/healthz',
    operationId: 'getHealth',
    summary: 'Liveness',
    description: 'The process answers. Restart it when this fails.',
    tag,
    responses: { 200: { description: 'Alive.', schema: z.object({ ok: z.literal(true) }) } },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/readyz',
    operationId: 'getReadiness',
    summary: 'Readiness',
    description:
      'Ready when the database answers, every migration is applied and the process is not draining; take the ' +
      'replica out of rotation (not restart it) while this fails.',
    tag,
    responses: {
      200: { description: 'Ready.', schema: readiness },
      503: { description: 'Not ready, and why.', schema: readiness },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/metrics',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description:
      'Metrics in the Prometheus text exposition format, when metrics are on. It takes the metrics token ' +
      '(`metrics.token` or `BATON_METRICS_TOKEN`), not an API key: its figures cover every app.',
    tag,
    ownSecurity: {
      name: 'metricsToken',
      scheme: { type: 'http', scheme: 'bearer', description: 'The metrics token: `Authorization: Bearer <token>`.' },
    },
    responses: {
      200: { description: 'The metrics.', mediaType: 'text/plain', schema: z.string() },
    },
    errors: NATIVE_ERRORS,
  },
  {
    method: 'GET',
    route: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This API document',
    description: 'The OpenAPI 3.1 document of this server. A reference page built from it is served at `/docs`.',
    tag,
    responses: { 200: { description: 'The document.', schema: z.looseObject({ openapi: z.string() }) } },
    errors: NATIVE_ERRORS,
  },
];
