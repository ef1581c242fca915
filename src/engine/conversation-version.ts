import type { ConversationPatch, Repositories } from '../store/store.ts';
import type { ConversationRecord } from '../domain/records.ts';
import { concurrentUpdate, conversationNotFound } from './engine-errors.ts';

/**
 * Compare-and-set on the conversation version inside a transaction. Every change of a
 * conversation's state goes through here, so two writers that read the same version cannot both
 * apply; the loser's transaction rolls back with a 409.
 */
export async function bumpConversation(
  tx: Repositories,
  appId: string,
  conversationId: string,
  patch: ConversationPatch,
  expectedVersion?: number,
): Promise<ConversationRecord> {
  let version = expectedVersion;
  if (version === undefined) {
    const current = await tx.conversations.get(appId, conversationId);
    if (!current) throw conversationNotFound(conversationId);
    version = current.version;
  }
  const updated = await tx.conversations.compareAndSet(conversationId, version, patch);
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
