import type { LedgerEntryRecord } from '../../src/domain/records.ts';
import type { Engine } from '../../src/engine/engine.ts';
import type { Store } from '../../src/store/store.ts';
import { ledgerEntry } from '../store/store-fixtures.ts';

/** The lease a process that died held: whatever it would still write is fenced off by it. */
export const DEAD_LEASE = 'lease_of_the_dead_process';

export interface OrphanedTurn {
  turnId: string;
  /** The user's message the turn started with (committed; the step after it never was). */
  text: string;
  now: string;
  /** How often the turn was taken over already. */
  takeovers?: number;
}

/**
 * Leaves a turn of `agentName` `in_progress` in a new conversation, as a process killed
 * mid-step would: its input committed, its step not, its lease held by the dead process.
 * Returns the conversation's id.
 */
export async function orphanTurn(
  engine: Engine,
  store: Store,
  appId: string,
  agentName: string,
  turn: OrphanedTurn,
): Promise<string> {
  const conversation = await engine.createConversation(appId, agentName, {});
  const agent = (await store.agents.get(appId, agentName))!;
  const { turnId, now } = turn;
  await store.transaction(async (tx) => {
    await tx.conversations.compareAndSet(conversation.id, conversation.version, {
      activeTurnId: turnId,
      headTurnId: turnId,
      updatedAt: now,
    });
    await tx.turns.insert({
      id: turnId,
      appId,
      conversationId: conversation.id,
      agentId: agent.id,
      agentVersion: agent.version,
      status: 'in_progress',
      options: { tools: [] },
      finishReason: null,
      error: null,
      stepCount: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      createdAt: now,
      updatedAt: now,
      completedAt: null,
      leaseToken: DEAD_LEASE,
      takeovers: turn.takeovers ?? 0,
      requestKey: null,
    });
    await tx.items.append([
      {
        id: `item_${turnId}`,
        conversationId: conversation.id,
        turnId,
        groupId: `msg_${turnId}`,
        createdAt: now,
        payload: { type: 'message', role: 'user', content: [{ type: 'text', text: turn.text }] },
      },
    ]);
  });
  return conversation.id;
}

/** A server call the dead process had claimed (it may have run) and never committed. */
export async function claimCutOffCall(
  store: Store,
  call: Pick<LedgerEntryRecord, 'id' | 'appId' | 'conversationId' | 'turnId' | 'agentName' | 'toolName' | 'arguments'>,
  now: string,
): Promise<LedgerEntryRecord> {
  const turn = { id: call.turnId, appId: call.appId, conversationId: call.conversationId };
  const claimed = ledgerEntry(turn, call.agentName, { ...call, kind: 'server', createdAt: now, updatedAt: now });
  await store.serverClaims.claim(claimed, now);
  return claimed;
}
