import type { ToolCall } from './api-types.ts';
import { attemptsLabel, isWorkerCall, lapsedLease, liveLease } from './worker-lease.ts';
import { When } from './when.tsx';

/** Set beside the kind badge: a worker call is still a client function, run elsewhere. */
export function WorkerBadge({ call }: { call: ToolCall }) {
  return isWorkerCall(call) ? <span class="badge badge-worker">Worker call</span> : null;
}

/**
 * The worker entries of a call's description list (the inbox row's and the call page's): who
 * holds it, since when and until when, or that it waits for a worker; and its attempts. Nothing
 * for calls the client runs.
 */
export function WorkerFacts({ call, now }: { call: ToolCall; now: number }) {
  if (!isWorkerCall(call)) return null;
  const lease = liveLease(call, now);
  const lapsed = lapsedLease(call, now);
  const attempts = attemptsLabel(call);
  return (
    <>
      {lease ? (
        <>
          <div>
            <dt>Held by</dt>
            <dd>
              {lease.holder}
              {/* A worker that gave no label is shown by its key id already. */}
              {lease.key_id !== lease.holder && (
                <span class="muted">
                  {' '}
                  (key <span class="mono">{lease.key_id}</span>)
                </span>
              )}
            </dd>
          </div>
          <div>
            <dt>Claimed</dt>
            <dd>
              <When at={lease.claimed_at} now={now} />
            </dd>
          </div>
          <div>
            <dt>Lease ends</dt>
            <dd>
              <When at={lease.expires_at} now={now} />
            </dd>
          </div>
        </>
      ) : (
        // A resolved call waits for nobody: only its attempts are left to tell.
        call.state === 'pending' && (
          <div>
            <dt>Worker</dt>
            <dd>
              Waiting for a worker
              {lapsed && (
                <span class="muted">
                  {' '}
                  ({lapsed.holder}'s lease ended <When at={lapsed.expires_at} now={now} />)
                </span>
              )}
            </dd>
          </div>
        )
      )}
      {attempts && (
        <div>
          <dt>Attempts</dt>
          <dd>{attempts}</dd>
        </div>
      )}
    </>
  );
}
