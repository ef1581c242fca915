import { ApiError } from './api-client.ts';
import { useSession } from './session-context.ts';

/** The webhook API answers 403 to keys below app admin; the pages then explain instead of failing. */
export function isForbidden(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 403;
}

/**
 * Why a member or reader key sees no endpoints: the server's rule, which key this is, and what to
 * do instead, with the server's own words beside them.
 */
export function AdminOnlyNotice({ message }: { message: string }) {
  const { principal } = useSession();
  return (
    <section class="notice stack" aria-labelledby="admin-only-title">
      <h2 id="admin-only-title">Only app admins manage webhooks</h2>
      <p>
        Webhook endpoints carry signing secrets and send the app&apos;s events outside Baton, so only keys with the role{' '}
        <strong>admin</strong> may list, create or change them. This key (<span class="mono">{principal.key.id}</span>)
        has the role <strong>{principal.key.role}</strong>.
      </p>
      <p>
        Sign in with an admin key of {principal.app.name} to add endpoints, rotate their secrets and see their
        deliveries. The rest of the console works with this key as its role allows.
      </p>
      <p class="hint">The server answered: {message}</p>
    </section>
  );
}
