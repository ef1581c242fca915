import type { WorkerLease } from './api-types.ts';
import { When } from './when.tsx';

/**
 * Stands where the answer form would be while a worker's live lease holds the call: the server
 * refuses any answer without the lease's token (409 tool_call_leased), so a form would only
 * invite work that is thrown away. Says who holds the call instead, and when that may end.
 */
export function LeasedCallNotice({ lease, now }: { lease: WorkerLease; now: number }) {
  return (
    <p class="notice" role="status">
      The worker <strong>{lease.holder}</strong> holds this call (claimed <When at={lease.claimed_at} now={now} />,
      lease ends <When at={lease.expires_at} now={now} />
      ). It can be answered here once no worker holds it.
    </p>
  );
}
