import { BatonError } from '../../domain/errors/baton-error.ts';
import { compareSortKeys, type OrderBy } from './order-by.ts';
import { invalidPageToken, type PageTokenCodec } from './page-token.ts';

export interface PaginateOptions<T> {
  /** A positive page size, as `readPageSize` returns. */
  pageSize: number;
  /** The client's pageToken; undefined or '' means the first page. */
  pageToken?: string | undefined;
  /** The request fingerprint (parent, filter, orderBy, …) the token is bound to. */
  query: string;
  order: OrderBy;
  /** Must be unique per item; build it with `sortKeyFor(order, read)`, which ends with the name. */
  sortKey: (item: T) => string[];
  codec: PageTokenCodec;
}

export interface Page<T> {
  page: T[];
  /** '' on the last page, as AIP-158 says. */
  nextPageToken: string;
}

/**
 * One AIP-158 page of an in-memory list. The token holds the last item's sort key, not an
 * index, so items inserted or deleted between calls are neither repeated nor skipped.
 */
export function paginate<T>(items: readonly T[], options: PaginateOptions<T>): Page<T> {
  const { pageSize, order, query, codec } = options;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new BatonError(
      'internal_error',
      `paginate needs a positive whole pageSize, not ${pageSize}; read it with readPageSize.`,
    );
  }
  const keyed = items.map((item) => ({ item, key: options.sortKey(item) }));
  keyed.sort((a, b) => compareSortKeys(order, a.key, b.key));
  for (let index = 1; index < keyed.length; index++) {
    // Equal keys would make a page boundary ambiguous: the rest of the run would be skipped.
    if (compareSortKeys(order, keyed[index - 1]!.key, keyed[index]!.key) === 0) {
      throw new BatonError(
        'duplicate_sort_key',
        `Two items share the sort key ${JSON.stringify(keyed[index]!.key)}; end sortKey with a unique field such as the name.`,
      );
    }
  }

  let start = 0;
  if (options.pageToken) {
    const position = codec.decode(options.pageToken, query);
    if (keyed.length > 0 && keyed[0]!.key.length !== position.length) throw invalidPageToken();
    // Binary search for the first item after the position.
    let high = keyed.length;
    while (start < high) {
      const middle = (start + high) >>> 1;
      if (compareSortKeys(order, keyed[middle]!.key, position) > 0) high = middle;
      else start = middle + 1;
    }
  }

  const slice = keyed.slice(start, start + pageSize);
  const last = slice.at(-1);
  const more = start + pageSize < keyed.length;
  return {
    page: slice.map((entry) => entry.item),
    nextPageToken: more && last ? codec.encode({ position: last.key, query }) : '',
  };
}
