import { applyTimeoutPolicy, type DeadlineFollowUps } from '../deadlines.ts';
import type { EngineContext } from '../engine-context.ts';

/**
 * Worker calls whose lease lapsed (the worker died, or stopped renewing): each is waiting for a
 * worker again, its lapse counted as the attempt its claim was. One whose attempts are spent
 * (`max_attempts`) gets no more workers: it resolves per its tool's timeout policy, as an expired
 * call does. Safe in several processes: every change is a conditional update.
 */
export async function applyLapsedLeases(
  context: EngineContext,
  limit: number,
  followUps: DeadlineFollowUps,
): Promise<number> {
  const now = context.clock.now().toISOString();
  let applied = 0;
  for (const entry of await context.store.ledger.listLapsedLeases(now, limit)) {
    const worker = entry.worker;
    if (!worker?.lease) continue;
    if (worker.attempts < worker.maxAttempts) {
      if (await context.store.ledger.clearLapsedLease(entry.appId, entry.id, worker.lease.token)) applied += 1;
      continue;
    }
    const text =
      `Expired: tool call '${entry.id}' (${entry.toolName}) was claimed by tool workers ${worker.attempts} times ` +
      `(max_attempts ${worker.maxAttempts}) and every lease lapsed without a result.`;
    if (await applyTimeoutPolicy(context, entry, text, now, followUps)) applied += 1;
  }
  return applied;
}
