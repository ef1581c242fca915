import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyHandle } from '../faces/kit/face-request.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import type { Store } from '../store/store.ts';

const MAX_KEY_LENGTH = 255;
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 20;

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

/**
 * `Idempotency-Key` on any POST: the first request with a key reserves it and its response is
 * stored; a retry with the same key and body gets that response again (`Idempotent-Replayed:
 * true`) instead of running twice; the same key with another body is refused. A retry that
 * arrives while the first is still running waits for it.
 * Returns a handle when this request is the one to run, or null when the reply was already sent.
 */
export async function beginIdempotentRequest(
  store: Store,
  appId: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<IdempotencyHandle | null | undefined> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? (header[0] ?? '') : header;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new BatonError(
      'invalid_idempotency_key',
      `The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} characters.`,
      {
        param: 'Idempotency-Key',
      },
    );
  }
  const hash = requestHash(request);
  const reservation = await store.idempotency.reserve(appId, key, hash, new Date().toISOString());
  if (reservation.reserved) {
    return {
      key,
      complete: (status, body) => store.idempotency.complete(appId, key, status, body),
      release: () => store.idempotency.release(appId, key),
    };
  }
  let existing = reservation.existing;
  if (existing.requestHash !== hash) {
    throw new BatonError(
      'idempotency_key_reused',
      `Idempotency-Key '${key}' was already used with a different request; use a new key for a new request.`,
      { param: 'Idempotency-Key' },
    );
  }
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  while (existing.state !== 'done' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const current = await store.idempotency.get(appId, key);
    if (!current) {
      // The first attempt failed and released the key: this retry runs the request itself.
      return beginIdempotentRequest(store, appId, request, reply);
    }
    existing = current;
  }
  if (existing.state !== 'done' || existing.responseStatus === null) {
    throw new BatonError(
      'idempotency_key_in_use',
      `A request with Idempotency-Key '${key}' is still being processed; retry in a moment.`,
      {
        param: 'Idempotency-Key',
      },
    );
  }
  await reply
    .code(existing.responseStatus)
    .header('content-type', 'application/json; charset=utf-8')
    .header('idempotent-replayed', 'true')
    .send(existing.responseBody ?? '');
  return null;
}
