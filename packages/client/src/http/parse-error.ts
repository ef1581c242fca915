import { BatonError } from '../errors.ts';

/**
 * Reads an error answer into a `BatonError`. Baton speaks three dialects, one per face:
 *  - native (Threads, ledger, agents): `{error:{type, code, message, param, ...details}}`;
 *  - OpenAI (Responses): `{error:{message, type, param, code}}` — the same keys, code may be null;
 *  - google.rpc (CES): `{error:{code: 404, message, status: 'NOT_FOUND', details:[ErrorInfo, BadRequest]}}`,
 *    where the stable code is the ErrorInfo `reason` and the extra facts its `metadata`.
 * Anything else (a proxy's HTML page) keeps its text as the message.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function googleError(status: number, error: Json, body: unknown, requestId: string | null): BatonError {
  const details = Array.isArray(error.details) ? error.details.filter(isObject) : [];
  const info = details.find((entry) => String(entry['@type']).endsWith('google.rpc.ErrorInfo'));
  const badRequest = details.find((entry) => String(entry['@type']).endsWith('google.rpc.BadRequest'));
  const violations =
    badRequest && Array.isArray(badRequest.fieldViolations) ? badRequest.fieldViolations.filter(isObject) : [];
  const reason = stringOrNull(info?.reason);
  const rpcStatus = stringOrNull(error.status);
  return new BatonError({
    status,
    // Reasons are UPPER_SNAKE on the wire; lower-cased they are the native codes (`tool_responses_pending`).
    code: reason ? reason.toLowerCase() : rpcStatus ? rpcStatus.toLowerCase() : null,
    type: rpcStatus,
    message: stringOrNull(error.message) ?? `HTTP ${status}`,
    param: stringOrNull(violations[0]?.field),
    details: isObject(info?.metadata) ? { ...info.metadata } : {},
    body,
    requestId,
  });
}

export function parseErrorBody(status: number, body: unknown, requestId: string | null = null): BatonError {
  const error = isObject(body) && isObject(body.error) ? body.error : null;
  if (!error) {
    const text = typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 500) : `HTTP ${status}`;
    return new BatonError({ status, code: null, type: null, message: text, param: null, body, requestId });
  }
  if (typeof error.code === 'number') return googleError(status, error, body, requestId);
  const { type, code, message, param, ...details } = error;
  return new BatonError({
    status,
    code: stringOrNull(code),
    type: stringOrNull(type),
    message: stringOrNull(message) ?? `HTTP ${status}`,
    param: stringOrNull(param),
    details,
    body,
    requestId,
  });
}
