import type { z } from 'zod';
import { BatonError } from '../../domain/errors/baton-error.ts';
import { parseRequest } from '../../domain/parse-request.ts';
import { isJsonObject } from '../json-objects.ts';

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
