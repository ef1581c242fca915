import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseRequest } from '../../domain/parse-request.ts';
import type { FaceContext } from '../kit/face-context.ts';
import { claimedCallView } from '../threads/thread-views.ts';

const toolName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be a tool name (letters, digits, _ and -, at most 64)');
const agentName = z.string().min(1).max(64);
/** A lease lasts 5 s to an hour: shorter would make heartbeats a load, longer would strand calls of dead workers. */
const leaseSeconds = z
  .number()
  .int('lease_seconds must be a whole number of seconds')
  .min(5, 'lease_seconds must be at least 5')
  .max(3_600, 'lease_seconds must be at most 3600 (an hour); renew the lease while the work runs');

/** `POST /v1/tool-calls/claim` (docs/tool-workers.md). */
export const claimBody = z
  .object({
    tools: z
      .array(toolName)
      .min(1, 'tools must name at least one tool the worker serves')
      .max(64, 'tools may name at most 64 tools'),
    agents: z.array(agentName).min(1, 'agents, when given, must name at least one agent').max(64).optional(),
    max_calls: z
      .number()
      .int('max_calls must be a whole number')
      .min(1, 'max_calls must be at least 1')
      .max(100, 'max_calls must be at most 100')
      .optional(),
    lease_seconds: leaseSeconds.optional(),
    wait_seconds: z
      .number()
      .min(0, 'wait_seconds must be at least 0')
      .max(60, 'wait_seconds must be at most 60; claim again after an empty answer')
      .optional(),
    worker: z.string().min(1).max(200).optional(),
  })
  .strict();

export const renewBody = z
  .object({ lease_token: z.string().min(1).max(200), lease_seconds: leaseSeconds.optional() })
  .strict();
export const releaseBody = z.object({ lease_token: z.string().min(1).max(200) }).strict();

const DEFAULT_LEASE_SECONDS = 60;

/** Tool workers: claiming worker calls under leases, renewing and giving leases back. */
export function registerWorkerRoutes(app: FastifyInstance, face: FaceContext): void {
  const { engine } = face;

  app.post('/v1/tool-calls/claim', async (request) => {
    const body = parseRequest(claimBody, request.body);
    const claimed = await engine.workers.claim(request.principal, {
      tools: [...new Set(body.tools)],
      ...(body.agents ? { agents: [...new Set(body.agents)] } : {}),
      maxCalls: body.max_calls ?? 1,
      leaseSeconds: body.lease_seconds ?? DEFAULT_LEASE_SECONDS,
      waitSeconds: body.wait_seconds ?? 0,
      ...(body.worker !== undefined ? { worker: body.worker } : {}),
    });
    return { object: 'list', data: claimed.map(claimedCallView) };
  });

  app.post<{ Params: { id: string } }>('/v1/tool-calls/:id/lease', async (request) => {
    const body = parseRequest(renewBody, request.body);
    return claimedCallView(
      await engine.workers.renew(
        request.principal,
        request.params.id,
        body.lease_token,
        body.lease_seconds ?? DEFAULT_LEASE_SECONDS,
      ),
    );
  });

  app.post<{ Params: { id: string } }>('/v1/tool-calls/:id/release', async (request) => {
    const body = parseRequest(releaseBody, request.body);
    return claimedCallView(await engine.workers.release(request.principal, request.params.id, body.lease_token));
  });
}
