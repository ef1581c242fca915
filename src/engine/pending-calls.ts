import type { LedgerEntryRecord } from '../domain/records.ts';

/**
 * Whether a ledger entry holds its turn paused. Asynchronous client calls are pending too, but
 * their turn went on without them: they never block a resume, a cancel or new input.
 */
export function blocksTurn(entry: LedgerEntryRecord): boolean {
  return entry.state === 'pending' && entry.kind !== 'client_async';
}
