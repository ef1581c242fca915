import type { PagedList } from './paged-list.ts';

/** The end of a paged list: a loading note while a page is read, and "Load more" while more exist. */
export function ListFooter({ list, noun }: { list: PagedList<unknown>; noun: string }) {
  return (
    <>
      {list.loading && <p role="status">Loading…</p>}
      {list.loadMore && (
        <button type="button" class="quiet" onClick={list.loadMore}>
          Load more {noun}
        </button>
      )}
    </>
  );
}
