import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Page<T> {
  items: T[];
  next: string | null;
}

export interface PagedList<T> {
  items: T[];
  loading: boolean;
  error: string | null;
  /** Loads the next page; null when there is none. */
  loadMore: (() => void) | null;
}

/**
 * A list read page by page with a "Load more" button, for the native (`next_cursor`) and the
 * Google (`nextPageToken`) pagination alike: `load` adapts either to `{items, next}`. The first
 * page is re-read whenever `key` changes (a filter).
 */
export function usePagedList<T>(key: string, load: (cursor: string | undefined) => Promise<Page<T>>): PagedList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);

  const fetchPage = useCallback(
    async (cursor: string | undefined, isCurrent: () => boolean) => {
      setLoading(true);
      try {
        const page = await load(cursor);
        if (!isCurrent()) return;
        setItems((current) => (cursor === undefined ? page.items : [...current, ...page.items]));
        setNext(page.next);
        setError(null);
      } catch (failure) {
        if (isCurrent()) setError((failure as Error).message);
      } finally {
        if (isCurrent()) setLoading(false);
      }
    },
    // `load` is a fresh closure each render; `key` is what says it changed.
    [key],
  );

  useEffect(() => {
    let current = true;
    setItems([]);
    void fetchPage(undefined, () => current);
    return () => {
      current = false;
    };
  }, [fetchPage]);

  return { items, loading, error, loadMore: next !== null && !loading ? () => void fetchPage(next, () => true) : null };
}
