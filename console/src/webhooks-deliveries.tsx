import { useState } from 'preact/hooks';
import { AlertRegion } from './alert-region.tsx';
import type { WebhookDelivery } from './api-types.ts';
import { href } from './hash-route.ts';
import { ListFooter } from './list-footer.tsx';
import { usePagedList } from './paged-list.ts';
import { useNow } from './relative-time.ts';
import { useSession } from './session-context.ts';
import { When } from './when.tsx';

/**
 * One endpoint's deliveries, newest event first, page by page: how each went and when the next
 * attempt is due, with a button to send one again. A refusal (409 while an attempt is under way)
 * is shown as the server words it.
 */
export function WebhookDeliveries({ endpointId }: { endpointId: string }) {
  const { client } = useSession();
  const now = useNow();
  const [version, setVersion] = useState(0);
  // Deliveries re-sent since the last read, as the server answered: shown over the listed ones.
  const [resent, setResent] = useState<Record<string, WebhookDelivery>>({});
  const [errors, setErrors] = useState<string[]>([]);
  const [status, setStatus] = useState('');
  const [busyId, setBusyId] = useState<string | null>(null);
  const list = usePagedList(`deliveries:${endpointId}:${version}`, async (after) => {
    const page = await client.listWebhookDeliveries(endpointId, { limit: 20, after });
    return { items: page.data, next: page.has_more ? page.next_cursor : null };
  });

  const refresh = () => {
    setResent({});
    setErrors([]);
    setStatus('');
    setVersion((current) => current + 1);
  };

  const resend = async (delivery: WebhookDelivery) => {
    if (busyId !== null) return;
    setBusyId(delivery.id);
    setErrors([]);
    setStatus('');
    try {
      const queued = await client.resendWebhookDelivery(endpointId, delivery.id);
      setResent((current) => ({ ...current, [queued.id]: queued }));
      setStatus(`The ${queued.event_type} delivery is sent again now. Refresh to see how it went.`);
    } catch (error) {
      setErrors([(error as Error).message]);
    } finally {
      setBusyId(null);
    }
  };

  return (
    <section aria-labelledby="deliveries-title">
      <div class="page-head">
        <h2 id="deliveries-title">Deliveries</h2>
        <button type="button" class="quiet" onClick={refresh}>
          Refresh deliveries
        </button>
      </div>
      <p class="hint">
        Newest event first. Each keeps its <code>webhook-id</code> on every attempt, so a receiver can drop repeats.
      </p>
      <AlertRegion id="webhook-delivery-errors" messages={[...(list.error ? [list.error] : []), ...errors]} />
      <p role="status" class="action-status">
        {status}
      </p>
      {!list.loading && list.items.length === 0 && !list.error && (
        <p class="empty">No deliveries yet: they appear when an event this endpoint asks for happens.</p>
      )}
      <ul class="card-list" aria-label="Deliveries">
        {list.items.map((listed) => {
          const delivery = resent[listed.id] ?? listed;
          return (
            <DeliveryRow
              key={delivery.id}
              delivery={delivery}
              now={now}
              busy={busyId === delivery.id}
              onResend={() => void resend(delivery)}
            />
          );
        })}
      </ul>
      <ListFooter list={list} noun="deliveries" />
    </section>
  );
}

interface RowProps {
  delivery: WebhookDelivery;
  now: number;
  busy: boolean;
  onResend(): void;
}

function DeliveryRow({ delivery, now, busy, onResend }: RowProps) {
  const next = delivery.next_attempt_at;
  return (
    <li class="card-row" data-delivery-id={delivery.id}>
      <h3 class="row-title mono">{delivery.event_type}</h3>
      <span class={`badge delivery-${delivery.status}`}>{delivery.status}</span>
      <dl class="call-meta">
        <div>
          <dt>Attempts</dt>
          <dd>{delivery.attempts}</dd>
        </div>
        <div>
          <dt>Last response</dt>
          <dd>{delivery.last_response_code ?? 'none'}</dd>
        </div>
        {delivery.last_attempt_at && (
          <div>
            <dt>Last attempt</dt>
            <dd>
              <When at={delivery.last_attempt_at} now={now} />
            </dd>
          </div>
        )}
        {next && (
          <div>
            <dt>Next attempt</dt>
            <dd>{Date.parse(next) <= now ? 'due now' : <When at={next} now={now} />}</dd>
          </div>
        )}
        <div>
          <dt>Event</dt>
          <dd class="mono">{delivery.event_id}</dd>
        </div>
        {delivery.thread_id && (
          <div>
            <dt>Thread</dt>
            <dd>
              <a class="mono" href={href.thread(delivery.thread_id)}>
                {delivery.thread_id}
              </a>
            </dd>
          </div>
        )}
      </dl>
      {delivery.last_error && (
        <p class="delivery-error">
          Last error: <code>{delivery.last_error}</code>
        </p>
      )}
      <button type="button" aria-disabled={busy} onClick={onResend}>
        {busy ? 'Resending…' : 'Resend'}
        <span class="visually-hidden">
          {' '}
          the {delivery.event_type} delivery {delivery.id}
        </span>
      </button>
    </li>
  );
}
