import { z } from 'zod';
import type { PageRequest } from '../../domain/page.ts';

/** `?limit=&after=` on every list endpoint. */
export const pageQuerySchema = z
  .object({
    limit: z.coerce
      .number()
      .int()
      .min(1, 'limit must be at least 1')
      .max(1000, 'limit must be at most 1000')
      .optional(),
    after: z.string().max(1000).optional(),
  })
  .strict();

export function toPageRequest(
  query: { limit?: number | undefined; after?: string | undefined },
  defaultLimit = 50,
): PageRequest {
  return { limit: query.limit ?? defaultLimit, cursor: query.after ?? null };
}
