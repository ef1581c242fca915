import { z } from 'zod';

/** `{object:"list", data, has_more, next_cursor}`: a page of a native list (`?limit=&after=`). */
export function listEnvelopeSchema<Item extends z.ZodType>(item: Item) {
  return z.object({
    object: z.literal('list'),
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().describe('Pass as `after` to read the next page; null on the last page.'),
  });
}
