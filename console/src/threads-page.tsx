import { useEffect, useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import { href, replaceHash } from './hash-route.ts';
import { usePagedList } from './paged-list.ts';
import { relativeTime, useNow } from './relative-time.ts';
import { useSession } from './session-context.ts';
import { ListFooter } from './list-footer.tsx';

/** Conversations, newest first, optionally of one agent; each opens its transcript. */
export function ThreadsPage({ query }: { query: URLSearchParams }) {
  const { client } = useSession();
  const agent = query.get('agent') ?? '';
  const now = useNow();
  const [agents, setAgents] = useState<string[]>([]);
  const list = usePagedList(agent, async (after) => {
    const page = await client.listThreads({ agent, limit: 50, after });
    return { items: page.data, next: page.has_more ? page.next_cursor : null };
  });

  useEffect(() => {
    client.listAgents({ limit: 200 }).then(
      (page) => setAgents(page.data.map((entry) => entry.name).sort()),
      () => {},
    );
  }, [client]);

  return (
    <>
      <h1 tabIndex={-1}>Threads</h1>
      <form class="filters" aria-label="Filter threads" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="threads-agent">Agent</label>
          <select
            id="threads-agent"
            value={agent}
            onChange={(event) =>
              replaceHash(
                href.threads(
                  new URLSearchParams(event.currentTarget.value ? { agent: event.currentTarget.value } : {}),
                ),
              )
            }
          >
            <option value="">Any agent</option>
            {(agent !== '' && !agents.includes(agent) ? [agent, ...agents] : agents).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </form>
      <AlertRegion messages={list.error ? [list.error] : []} />
      {!list.loading && list.items.length === 0 && !list.error && <p class="empty">No threads yet.</p>}
      <ul class="card-list" aria-label="Threads">
        {list.items.map((thread) => (
          <li key={thread.id} class="card-row">
            <a class="mono" href={href.thread(thread.id)}>
              {thread.id}
            </a>
            <span class={`badge status-${thread.status}`}>{thread.status}</span>
            <p class="muted">
              {thread.agent} · updated {relativeTime(thread.updated_at, now)}
              {thread.pending_tool_calls.length > 0 && ` · ${thread.pending_tool_calls.length} pending`}
            </p>
          </li>
        ))}
      </ul>
      <ListFooter list={list} noun="threads" />
    </>
  );
}
