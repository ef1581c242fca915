import { AlertRegion } from './alert-region.tsx';
import { href } from './hash-route.ts';
import { usePagedList } from './paged-list.ts';
import { useSession } from './session-context.ts';
import { ListFooter } from './list-footer.tsx';

/** The app's agents: model, version and the client tools they declare. */
export function AgentsPage() {
  const { client } = useSession();
  const list = usePagedList('agents', async (after) => {
    const page = await client.listAgents({ limit: 100, after });
    return { items: page.data, next: page.has_more ? page.next_cursor : null };
  });

  return (
    <>
      <h1 tabIndex={-1}>Agents</h1>
      <AlertRegion messages={list.error ? [list.error] : []} />
      {!list.loading && list.items.length === 0 && !list.error && <p class="empty">No agents yet.</p>}
      <ul class="card-list" aria-label="Agents">
        {list.items.map((agent) => (
          <li key={agent.name} class="card-row">
            <h2 class="row-title">{agent.name}</h2>
            <p class="muted">
              {agent.model} · version {agent.version}
            </p>
            {agent.description && <p>{agent.description}</p>}
            <p>
              {agent.tools.length === 0
                ? 'No client tools'
                : `Client tools: ${agent.tools.map((tool) => tool.name).join(', ')}`}
            </p>
            <p>
              <a href={href.threads(new URLSearchParams({ agent: agent.name }))}>Threads of {agent.name}</a> ·{' '}
              <a href={href.inbox(new URLSearchParams({ agent: agent.name }))}>Pending calls of {agent.name}</a>
            </p>
          </li>
        ))}
      </ul>
      <ListFooter list={list} noun="agents" />
    </>
  );
}
