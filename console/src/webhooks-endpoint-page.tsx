import { useEffect, useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import type { IssuedWebhookEndpoint, WebhookEndpoint } from './api-types.ts';
import { href } from './hash-route.ts';
import { fullTime, useNow } from './relative-time.ts';
import { useSession } from './session-context.ts';
import { When } from './when.tsx';
import { AdminOnlyNotice, isForbidden } from './webhooks-admin-only.tsx';
import { WebhookDeliveries } from './webhooks-deliveries.tsx';
import { endpointStatus, eventTypesLabel, filterLabel } from './webhooks-fields.ts';
import { RotateSecretForm } from './webhooks-rotate-form.tsx';
import { SecretNotice } from './webhooks-secret-notice.tsx';

type Busy = 'toggle' | 'delete' | null;

/** One webhook endpoint: what it receives, enable or disable it, rotate its secret, delete it, and its deliveries. */
export function WebhookEndpointPage({ id }: { id: string }) {
  const { client } = useSession();
  const now = useNow();
  const [endpoint, setEndpoint] = useState<WebhookEndpoint | null>(null);
  const [forbidden, setForbidden] = useState<string | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState<Busy>(null);
  const [rotating, setRotating] = useState(false);
  const [issued, setIssued] = useState<IssuedWebhookEndpoint | null>(null);

  useEffect(() => {
    let alive = true;
    client.getWebhookEndpoint(id).then(
      (found) => alive && setEndpoint(found),
      (error: Error) => {
        if (!alive) return;
        if (isForbidden(error)) setForbidden(error.message);
        else setErrors([error.message]);
      },
    );
    return () => {
      alive = false;
    };
  }, [client, id]);

  const act = async (kind: Exclude<Busy, null>, action: () => Promise<void>) => {
    if (busy !== null) return;
    setBusy(kind);
    setErrors([]);
    setStatus('');
    try {
      await action();
    } catch (error) {
      setErrors([(error as Error).message]);
    } finally {
      setBusy(null);
    }
  };

  const toggle = (current: WebhookEndpoint) =>
    act('toggle', async () => {
      const updated = await client.setWebhookEndpointEnabled(id, !current.enabled);
      setEndpoint(updated);
      setStatus(
        updated.enabled
          ? current.disabled_reason
            ? 'Endpoint enabled again; its past failures are forgotten.'
            : 'Endpoint enabled.'
          : 'Endpoint disabled: Baton sends it no events until it is enabled again.',
      );
    });

  const remove = (current: WebhookEndpoint) => {
    if (busy !== null) return;
    const question =
      `Delete the webhook endpoint ${current.url}? Its pending deliveries are dropped and its receiver gets ` +
      'nothing more. This cannot be undone.';
    if (!window.confirm(question)) return;
    void act('delete', async () => {
      await client.deleteWebhookEndpoint(id);
      window.location.hash = href.webhooks();
    });
  };

  if (forbidden !== null)
    return (
      <>
        <Breadcrumb id={id} />
        <h1 tabIndex={-1}>Webhook endpoint</h1>
        <AdminOnlyNotice message={forbidden} />
      </>
    );

  const state = endpoint && endpointStatus(endpoint);
  return (
    <>
      <Breadcrumb id={id} />
      <h1 tabIndex={-1}>Webhook endpoint</h1>
      <AlertRegion id="webhook-endpoint-errors" messages={errors} />
      <p role="status" class="action-status">
        {status}
      </p>
      {!endpoint && errors.length === 0 && <p role="status">Loading…</p>}
      {issued && (
        <SecretNotice
          title="New signing secret"
          secret={issued.secret}
          detail={
            issued.previous_secret_expires_at
              ? `The old secret signs beside it until ${fullTime(issued.previous_secret_expires_at)}.`
              : 'The old secret no longer signs.'
          }
          onDone={() => setIssued(null)}
        />
      )}
      {endpoint && state && (
        <>
          <dl class="facts">
            <div>
              <dt>URL</dt>
              <dd class="mono">{endpoint.url}</dd>
            </div>
            {endpoint.description && (
              <div>
                <dt>Description</dt>
                <dd>{endpoint.description}</dd>
              </div>
            )}
            <div>
              <dt>Status</dt>
              <dd>
                <span class={`badge endpoint-${state.tone}`}>{state.label}</span>
              </dd>
            </div>
            <div>
              <dt>Events</dt>
              <dd>{eventTypesLabel(endpoint.event_types)}</dd>
            </div>
            <div>
              <dt>Agents</dt>
              <dd>{filterLabel(endpoint.agents, 'every agent')}</dd>
            </div>
            <div>
              <dt>Tools</dt>
              <dd>{filterLabel(endpoint.tools, 'every tool')}</dd>
            </div>
            <div>
              <dt>Call arguments</dt>
              <dd>{endpoint.include_arguments ? 'included' : 'left out'}</dd>
            </div>
            {endpoint.failing_since && (
              <div>
                <dt>Failing since</dt>
                <dd>
                  <When at={endpoint.failing_since} now={now} />
                </dd>
              </div>
            )}
            {endpoint.previous_secret_expires_at && (
              <div>
                <dt>Old secret signs until</dt>
                <dd>{fullTime(endpoint.previous_secret_expires_at)}</dd>
              </div>
            )}
            <div>
              <dt>Created</dt>
              <dd>
                <When at={endpoint.created_at} now={now} />
              </dd>
            </div>
            <div>
              <dt>Id</dt>
              <dd class="mono">{endpoint.id}</dd>
            </div>
          </dl>
          {endpoint.disabled_reason && (
            <p class="disabled-reason">
              Disabled by Baton: {endpoint.disabled_reason}. Enable it once the receiver answers again.
            </p>
          )}
          <div class="button-row">
            <button type="button" aria-disabled={busy !== null} onClick={() => void toggle(endpoint)}>
              {endpoint.enabled ? 'Disable endpoint' : 'Enable endpoint'}
            </button>
            <button type="button" aria-expanded={rotating} onClick={() => setRotating(!rotating)}>
              Rotate secret
            </button>
            <button type="button" class="danger" aria-disabled={busy !== null} onClick={() => remove(endpoint)}>
              {busy === 'delete' ? 'Deleting…' : 'Delete endpoint'}
            </button>
          </div>
          {rotating && (
            <RotateSecretForm
              endpointId={id}
              onCancel={() => setRotating(false)}
              onRotated={(rotated) => {
                setRotating(false);
                setEndpoint(rotated);
                setIssued(rotated);
              }}
            />
          )}
          <WebhookDeliveries endpointId={id} />
        </>
      )}
    </>
  );
}

function Breadcrumb({ id }: { id: string }) {
  return (
    <p class="breadcrumb">
      <a href={href.webhooks()}>Webhooks</a> / <span class="mono">{id}</span>
    </p>
  );
}
