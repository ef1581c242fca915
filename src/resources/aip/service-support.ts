import type { z } from 'zod';
import type { AgentService } from '../agents/agent-service.ts';
import { BatonError } from '../../domain/errors/baton-error.ts';
import type { ServerKeys } from '../../faces/kit/face-context.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import type { JsonObject, JsonValue } from '../../domain/records.ts';
import type { Store } from '../../store/store.ts';
import { etagMatches } from './etag.ts';

/** What the CES resource services need; the REST routes and the MCP tools build them from the FaceContext. */
export interface CesResourceDependencies {
  store: Store;
  agents: AgentService;
  keys: ServerKeys;
}

/**
 * Validates a request message against its strict zod schema. Failures are INVALID_ARGUMENT naming
 * the field (`toolset.mcpToolset.serverAdress`), through the same parser the other faces use.
 */
export function parseCesRequest<Schema extends z.ZodType>(schema: Schema, request: unknown): z.infer<Schema> {
  if (!isJsonObject(request)) {
    throw new BatonError('invalid_request', 'The request must be a JSON object.');
  }
  return parseRequest(schema, request, 'request');
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** AIP-154: a given etag that no longer matches is ABORTED; none (or '') lets the write win. */
export function assertFreshEtag(given: string | undefined, current: string, name: string, field: string): void {
  if (etagMatches(given, current)) return;
  throw new BatonError(
    'etag_mismatch',
    `'${name}' changed since you read it (etag ${current}, yours ${given}); read it again and reapply your change.`,
    {
      param: field,
    },
  );
}

/** A compare-and-set lost to a concurrent writer: the same status as a stale etag. */
export function concurrentUpdate(name: string): BatonError {
  return new BatonError(
    'concurrent_update',
    `'${name}' was changed by another request at the same time; read it again and retry.`,
  );
}

/** A copy of `body` without the fields the server owns, which clients may send but never set. */
export function withoutFields(body: JsonObject, fields: readonly string[]): JsonObject {
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(body)) if (!fields.includes(key) && value !== undefined) copy[key] = value;
  return copy;
}

/** zod output (with `undefined` for absent optionals) as plain JSON. */
export function toJsonObject(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}

export function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}
