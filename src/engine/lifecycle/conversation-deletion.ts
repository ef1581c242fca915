import { BatonError } from '../../domain/errors/baton-error.ts';
import type { RowCounts } from '../../domain/lifecycle.ts';
import type { ConversationRecord, LedgerEntryRecord } from '../../domain/records.ts';
import type { Repositories } from '../../store/store.ts';
import { nowIso, type EngineContext } from '../engine-context.ts';
import { conversationNotFound } from '../engine-errors.ts';
import { close } from '../ledger/ledger-transitions.ts';
import { auditEvent } from './audit-trail.ts';

/** How a delete treats a turn that is running (`in_progress`): refuse with 409, or cancel it. */
export type WhileRunning = 'refuse' | 'cancel';

export interface DeleteOptions {
  /** Faces refuse (`conversation_running`); Baton's own clean-ups cancel. Default `cancel`. */
  whileRunning?: WhileRunning;
  /** Record a `conversation.deleted` audit event (every delete a client or the retention job asks for). */
  audit?: boolean;
}

const PENDING_BATCH = 100;
const DELETED_RESULT = 'Cancelled: the conversation was deleted.';

/** A delete refused because a turn of the conversation is running. */
export function conversationRunning(conversationId: string, turnId: string): BatonError {
  return new BatonError(
    'conversation_running',
    `Conversation '${conversationId}' is running turn '${turnId}'; wait for it to end or pause, or cancel it, then delete.`,
    { details: { turn_id: turnId }, data: { conversation_id: conversationId, turn_id: turnId } },
  );
}

/**
 * Deletes a conversation in one transaction: its open turn is closed (a paused one always; a
 * running one only when `whileRunning` is `cancel`), every pending call of it, asynchronous ones
 * included, is cancelled through the ledger's transitions (so no worker, webhook or deadline acts
 * on it afterwards), and then every row of it is removed. Returns the rows removed, by table.
 */
export async function deleteConversationData(
  context: EngineContext,
  appId: string,
  conversationId: string,
  actor: string | null,
  options: DeleteOptions = {},
): Promise<RowCounts> {
  const counts = await deleteConversationIf(context, appId, conversationId, actor, async () => true, options);
  if (!counts) throw conversationNotFound(conversationId);
  return counts;
}

/** Whether a conversation may still be deleted, asked inside the deleting transaction. */
export type DeleteGuard = (conversation: ConversationRecord, tx: Repositories) => Promise<boolean>;

/**
 * `deleteConversationData`, but only if `guard` still holds of the conversation as the deleting
 * transaction reads it (the retention job: still idle, no turn open, no call pending). Otherwise
 * nothing changes and the answer is null.
 */
export async function deleteConversationIf(
  context: EngineContext,
  appId: string,
  conversationId: string,
  actor: string | null,
  guard: DeleteGuard,
  options: DeleteOptions = {},
): Promise<RowCounts | null> {
  const now = nowIso(context);
  let closedTurnId: string | null = null;
  const counts = await context.store.transaction(async (tx) => {
    const conversation = await tx.conversations.get(appId, conversationId);
    if (!conversation) throw conversationNotFound(conversationId);
    if (!(await guard(conversation, tx))) return null;
    if (conversation.activeTurnId) {
      const turn = await tx.turns.get(conversation.activeTurnId);
      if (turn?.status === 'in_progress' && (options.whileRunning ?? 'cancel') === 'refuse')
        throw conversationRunning(conversationId, turn.id);
      const closed = await tx.turns.update(conversation.activeTurnId, ['in_progress', 'requires_action'], {
        status: 'cancelled',
        finishReason: 'cancelled',
        error: null,
        updatedAt: now,
        completedAt: now,
      });
      if (closed) closedTurnId = closed.id;
    }
    const cancelled = await cancelPendingCalls(tx, appId, conversationId, actor, now);
    const removed = await tx.lifecycle.purgeConversation(appId, conversationId);
    if (!removed) throw conversationNotFound(conversationId);
    if (options.audit) {
      await tx.lifecycle.insertAudit(
        auditEvent(context, appId, actor, 'conversation.deleted', conversationId, removed, {
          cancelled_calls: cancelled,
          closed_turn: closedTurnId,
        }),
      );
    }
    return removed;
  });
  // Stop a model call of the closed turn running in this process; its writes would be refused anyway.
  if (closedTurnId) context.running.get(closedTurnId)?.abort();
  return counts;
}

/** Moves every pending call of the conversation to `cancelled` (the ledger's own transition); returns how many. */
async function cancelPendingCalls(
  tx: Repositories,
  appId: string,
  conversationId: string,
  actor: string | null,
  now: string,
): Promise<number> {
  let cancelled = 0;
  for (;;) {
    const page = await tx.ledger.list({ appId, conversationId, state: 'pending' }, { limit: PENDING_BATCH });
    const resolved: (LedgerEntryRecord | undefined)[] = [];
    for (const entry of page.data) {
      resolved.push(await close(tx, entry, { state: 'cancelled', message: DELETED_RESULT, actor }, now));
    }
    const done = resolved.filter((entry) => entry !== undefined).length;
    cancelled += done;
    if (page.nextCursor === null || done === 0) return cancelled;
  }
}
