import { BatonError } from '../../domain/errors/baton-error.ts';
import type { LedgerEntryRecord } from '../../domain/records.ts';

/** Whether a live worker lease holds the call at `now` (a lapsed one holds nothing). */
export function heldByWorker(entry: LedgerEntryRecord, now: string): boolean {
  const lease = entry.worker?.lease;
  return entry.state === 'pending' && lease !== null && lease !== undefined && lease.expiresAt >= now;
}

/** A worker's token that no longer holds the call: the worker must drop the work. */
export function leaseLost(entry: LedgerEntryRecord, now: string): BatonError {
  const lease = entry.worker?.lease;
  const why = !entry.worker
    ? 'it is not a worker call, so no lease ever held it'
    : entry.state !== 'pending'
      ? `it is already ${entry.state}`
      : lease && lease.expiresAt >= now
        ? `another worker (${lease.holder}) holds it since ${lease.claimedAt}`
        : lease
          ? `the lease ended at ${lease.expiresAt} without a renewal`
          : 'the lease lapsed or was released, and the call waits for a worker again';
  return new BatonError(
    'lease_lost',
    `The lease token does not hold tool call '${entry.id}' (${entry.toolName}): ${why}. Drop this work: a result ` +
      'sent with this token is not accepted. Renew leases within lease_seconds (POST /v1/tool-calls/{id}/lease).',
    { param: 'lease_token', details: { tool_call_id: entry.id, state: entry.state } },
  );
}

/** Anyone but the holder answering a call a worker is running. */
export function leasedByWorker(entry: LedgerEntryRecord, param: string | null): BatonError {
  const lease = entry.worker?.lease;
  return new BatonError(
    'tool_call_leased',
    `Tool call '${entry.id}' (${entry.toolName}) is being run by tool worker ${lease?.holder ?? 'unknown'} ` +
      `(lease until ${lease?.expiresAt ?? 'unknown'}): only its result is accepted while the lease holds. ` +
      'Wait for the result, or for the lease to lapse.',
    {
      param,
      details: { tool_call_id: entry.id, holder: lease?.holder ?? null, lease_expires_at: lease?.expiresAt ?? null },
    },
  );
}
