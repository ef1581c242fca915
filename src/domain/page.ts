/** Cursor paging, as every list of the store and the engine returns it. */

export interface Page<T> {
  data: T[];
  /** Opaque cursor for the next page, or null when this is the last page. */
  nextCursor: string | null;
}

export interface PageRequest {
  limit: number;
  /** A cursor returned by a previous page. */
  cursor?: string | null;
}
