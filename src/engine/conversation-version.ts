import type { ConversationPatch, Repositories } from '../store/store.ts';
import type { ConversationRecord } from '../domain/records.ts';
import { concurrentUpdate, conversationNotFound } from './engine-errors.ts';

/**
 * Every change of a conversation's state goes through here and moves its version on. With
 * `expectedVersion` (a writer that read the conversation first, as a new turn's start does) it is
 * a compare-and-set: two writers that read the same version cannot both apply, and the loser's
 * transaction rolls back with a 409. Without it the writer's right to write is guarded elsewhere
 * (a status- and lease-guarded update of its turn in the same transaction), and the version is
 * moved on in one statement.
 */
export async function bumpConversation(
  tx: Repositories,
  appId: string,
  conversationId: string,
  patch: ConversationPatch,
  expectedVersion?: number,
): Promise<ConversationRecord> {
  if (expectedVersion === undefined) {
    const bumped = await tx.conversations.bump(appId, conversationId, patch);
    if (!bumped) throw conversationNotFound(conversationId);
    return bumped;
  }
  const updated = await tx.conversations.compareAndSet(conversationId, expectedVersion, patch);
  if (!updated) {
    throw concurrentUpdate(conversationId);
  }
  return updated;
}

/** Thrown inside a turn's transaction when the turn is no longer ours to write (cancelled meanwhile). */
export class TurnSupersededError extends Error {
  constructor(turnId: string) {
    super(`Turn ${turnId} changed state while running (cancelled or expired).`);
    this.name = 'TurnSupersededError';
  }
}
