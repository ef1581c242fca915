import { useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import type { IssuedWebhookEndpoint, WebhookEndpoint } from './api-types.ts';
import { href } from './hash-route.ts';
import { ListFooter } from './list-footer.tsx';
import { usePagedList } from './paged-list.ts';
import { useNow } from './relative-time.ts';
import { useSession } from './session-context.ts';
import { When } from './when.tsx';
import { AdminOnlyNotice, isForbidden } from './webhooks-admin-only.tsx';
import { CreateEndpointForm } from './webhooks-create-form.tsx';
import { endpointStatus, eventTypesLabel } from './webhooks-fields.ts';
import { SecretNotice } from './webhooks-secret-notice.tsx';

/**
 * The app's webhook endpoints (an app admin's): each with what it receives and whether it is
 * sending, and a form for a new one whose signing secret is shown once, here, after creation.
 */
export function WebhooksPage() {
  const { client } = useSession();
  const now = useNow();
  // Re-read after a creation: the list is the server's (oldest first), not guessed locally.
  const [version, setVersion] = useState(0);
  const [forbidden, setForbidden] = useState<string | null>(null);
  const [loadedOnce, setLoadedOnce] = useState(false);
  const [issued, setIssued] = useState<IssuedWebhookEndpoint | null>(null);
  const list = usePagedList(`webhooks:${version}`, async () => {
    try {
      const page = await client.listWebhookEndpoints();
      setLoadedOnce(true);
      // The API returns every endpoint at once (an app has few): one page, no cursor.
      return { items: page.data, next: null };
    } catch (error) {
      if (isForbidden(error)) setForbidden(error.message);
      throw error;
    }
  });

  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p class="lede">
        Baton POSTs the app&apos;s events (calls waiting or resolved, turns finished or paused) to these URLs, signed as
        Standard Webhooks says, and retries until the receiver answers 2xx.
      </p>
      {forbidden !== null ? (
        <AdminOnlyNotice message={forbidden} />
      ) : (
        <>
          {issued && (
            <SecretNotice
              title={`Signing secret of ${issued.url}`}
              secret={issued.secret}
              onDone={() => setIssued(null)}
            />
          )}
          <section aria-labelledby="endpoints-title">
            <h2 id="endpoints-title">Endpoints</h2>
            <AlertRegion messages={list.error ? [list.error] : []} />
            {!list.loading && list.items.length === 0 && !list.error && <p class="empty">No webhook endpoints yet.</p>}
            <ul class="card-list" aria-label="Webhook endpoints">
              {list.items.map((endpoint) => (
                <EndpointRow key={endpoint.id} endpoint={endpoint} now={now} />
              ))}
            </ul>
            <ListFooter list={list} noun="endpoints" />
          </section>
          {loadedOnce && (
            <section aria-labelledby="new-endpoint-title">
              <h2 id="new-endpoint-title">Add an endpoint</h2>
              <CreateEndpointForm
                onCreated={(created) => {
                  setIssued(created);
                  setVersion((current) => current + 1);
                }}
              />
            </section>
          )}
        </>
      )}
    </>
  );
}

function EndpointRow({ endpoint, now }: { endpoint: WebhookEndpoint; now: number }) {
  const status = endpointStatus(endpoint);
  return (
    <li class="card-row" data-endpoint-id={endpoint.id}>
      <h3 class="row-title">
        <a class="mono" href={href.webhook(endpoint.id)}>
          {endpoint.url}
        </a>
      </h3>
      <span class={`badge endpoint-${status.tone}`}>{status.label}</span>
      {endpoint.description && <p>{endpoint.description}</p>}
      <dl class="call-meta">
        <div>
          <dt>Events</dt>
          <dd>{eventTypesLabel(endpoint.event_types)}</dd>
        </div>
        {endpoint.agents && (
          <div>
            <dt>Agents</dt>
            <dd>{endpoint.agents.join(', ')}</dd>
          </div>
        )}
        {endpoint.tools && (
          <div>
            <dt>Tools</dt>
            <dd>{endpoint.tools.join(', ')}</dd>
          </div>
        )}
        {endpoint.failing_since && (
          <div>
            <dt>Failing since</dt>
            <dd>
              <When at={endpoint.failing_since} now={now} />
            </dd>
          </div>
        )}
      </dl>
      {endpoint.disabled_reason && <p class="disabled-reason">Disabled by Baton: {endpoint.disabled_reason}</p>}
    </li>
  );
}
