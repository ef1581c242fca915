import { useEffect, useRef } from 'preact/hooks';
import { AgentsPage } from './agents-page.tsx';
import { CallPage } from './call-page.tsx';
import { href, useHashRoute, type Route } from './hash-route.ts';
import { InboxPage } from './inbox-page.tsx';
import { useSession } from './session-context.ts';
import { ThreadPage } from './thread-page.tsx';
import { ThreadsPage } from './threads-page.tsx';
import { ToolsPage } from './tools-page.tsx';
import { WebhookEndpointPage } from './webhooks-endpoint-page.tsx';
import { WebhooksPage } from './webhooks-page.tsx';

const NAV: { label: string; target: string; pages: Route['page'][] }[] = [
  { label: 'Inbox', target: href.inbox(), pages: ['inbox', 'call'] },
  { label: 'Threads', target: href.threads(), pages: ['threads', 'thread'] },
  { label: 'Agents', target: href.agents(), pages: ['agents'] },
  { label: 'Tools', target: href.tools(), pages: ['tools'] },
  { label: 'Webhooks', target: href.webhooks(), pages: ['webhooks', 'webhook'] },
];

function routeKey(route: Route): string {
  return 'id' in route ? `${route.page}:${route.id}` : route.page;
}

/** Header, navigation and the current page. */
export function AppShell({ onSignOut }: { onSignOut(): void }) {
  const { principal } = useSession();
  const route = useHashRoute();
  const key = routeKey(route);
  const firstRender = useRef(true);

  // A hash change swaps the page without a load, so screen readers hear nothing and focus stays
  // on the old link: move it to the new page's heading, as a page load would.
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    document.querySelector<HTMLElement>('#content h1')?.focus();
  }, [key]);

  return (
    <>
      <a
        class="skip-link"
        href="#content"
        onClick={(event) => {
          event.preventDefault();
          document.querySelector<HTMLElement>('#content h1')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top-bar">
        <p class="brand">
          Baton console <span class="app-name">· {principal.app.name}</span>
        </p>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.label}>
                <a href={item.target} aria-current={item.pages.includes(route.page) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="quiet" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="content">
        <Page route={route} />
      </main>
    </>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'inbox':
      return <InboxPage query={route.query} />;
    case 'call':
      return <CallPage key={route.id} id={route.id} />;
    case 'threads':
      return <ThreadsPage query={route.query} />;
    case 'thread':
      return <ThreadPage key={route.id} id={route.id} />;
    case 'agents':
      return <AgentsPage />;
    case 'tools':
      return <ToolsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'webhook':
      return <WebhookEndpointPage key={route.id} id={route.id} />;
    case 'not-found':
      return (
        <>
          <h1 tabIndex={-1}>Page not found</h1>
          <p>
            Nothing lives at <code>#{route.path}</code>. Go to the <a href={href.inbox()}>inbox</a>.
          </p>
        </>
      );
  }
}
