import type { LedgerEntryRecord } from '../domain/records.ts';

/**
 * Whether a ledger entry holds its turn paused. Asynchronous client calls are pending too, but
 * their turn went on without them: they never block a resume, a cancel or new input.
 */
export function blocksTurn(entry: LedgerEntryRecord): boolean {
  return entry.state === 'pending' && entry.kind !== 'client_async';
}

/**
 * The calls a paused turn waits (or waited) for, among its ledger rows: the client calls and
 * approvals of its latest step that made any (a step's rows share its `createdAt`).
 */
export function callsPausedOn(entries: readonly LedgerEntryRecord[]): LedgerEntryRecord[] {
  const pauses = (entry: LedgerEntryRecord): boolean => entry.kind === 'client' || entry.kind === 'approval';
  let latest = '';
  for (const entry of entries) if (pauses(entry) && entry.createdAt > latest) latest = entry.createdAt;
  return entries.filter((entry) => pauses(entry) && entry.createdAt === latest);
}
