import { CallRow } from './call-row.tsx';
import { href, replaceHash } from './hash-route.ts';
import { InboxFilterForm } from './inbox-filter-form.tsx';
import { filtersFromQuery, filtersToQuery, type InboxFilters } from './inbox-filters.ts';
import { usePendingCalls } from './pending-calls.ts';
import { useNow } from './relative-time.ts';
import { StreamStatusBadge } from './stream-status.tsx';

/** The default page: every call waiting for a person or an app, across conversations. */
export function InboxPage({ query }: { query: URLSearchParams }) {
  const filters = filtersFromQuery(query);
  const { calls, loading, error, status, statusDetail, announcement } = usePendingCalls(filters);
  const now = useNow();
  const setFilters = (next: InboxFilters) => replaceHash(href.inbox(filtersToQuery(next)));
  const filtered = filters.agent !== '' || filters.tool !== '' || filters.age !== '';

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Inbox</h1>
        <StreamStatusBadge status={status} detail={statusDetail} />
      </div>
      <p class="lede">Approvals and client function calls waiting for an answer, newest first.</p>
      <InboxFilterForm filters={filters} onChange={setFilters} />
      <div role="alert" class="alert-region">
        {error && <p class="error">{error}</p>}
      </div>
      <p class="count" aria-live="polite" aria-atomic="true">
        {loading && calls.length === 0 ? 'Loading…' : `${calls.length} pending${filtered ? ' (filtered)' : ''}`}
      </p>
      {!loading && calls.length === 0 && !error && (
        <p class="empty">Nothing is waiting. New calls appear here as they happen.</p>
      )}
      {calls.length > 0 && (
        <ul class="call-list" aria-label="Pending calls">
          {calls.map((call) => (
            <CallRow key={call.id} call={call} now={now} />
          ))}
        </ul>
      )}
      <p class="visually-hidden" aria-live="polite">
        {announcement}
      </p>
    </>
  );
}
