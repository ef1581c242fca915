import type { ConversationRecord, ItemRecord, NewItem, TurnRecord } from '../domain/records.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { nowIso, type EngineContext } from './engine-context.ts';

const COPY_BATCH = 500;

/**
 * Starts a new conversation whose history is a copy of another's up to item `uptoSeq`: a branch,
 * as when a Responses client continues from a response that is not the latest. The copied
 * history belongs to one completed turn of the new conversation, so per-turn lookups (outputs
 * written, ledger) never mix the two conversations. A branch point that leaves a tool call
 * without its output is refused: that history would be invalid for every provider.
 */
export async function forkConversation(
  context: EngineContext,
  source: ConversationRecord,
  uptoSeq: number,
): Promise<ConversationRecord> {
  const copied: ItemRecord[] = [];
  for (let after = 0; ;) {
    const batch = await context.store.items.listAfterSeq(source.id, after, COPY_BATCH);
    const kept = batch.filter((item) => item.seq <= uptoSeq);
    copied.push(...kept);
    if (kept.length < batch.length || batch.length < COPY_BATCH) break;
    after = batch[batch.length - 1]?.seq ?? after;
  }
  const answered = new Set(
    copied.flatMap((item) => (item.payload.type === 'function_call_output' ? [item.payload.callId] : [])),
  );
  const open = copied.flatMap((item) =>
    item.payload.type === 'function_call' && !answered.has(item.payload.callId) ? [item.payload.callId] : [],
  );
  if (open.length > 0) {
    throw new BatonError(
      'branch_has_open_calls',
      `The history at this point ends with tool calls ${open.join(', ')} that were answered later ` +
        `in conversation '${source.id}'; continue from the point where they were answered.`,
      { details: { open_tool_call_ids: open } },
    );
  }

  const now = nowIso(context);
  const conversation: ConversationRecord = {
    ...source,
    id: context.newId('thread'),
    version: 1,
    activeTurnId: null,
    headTurnId: null,
    createdAt: now,
    updatedAt: now,
  };
  const historyTurn: TurnRecord = {
    id: context.newId('turn'),
    appId: source.appId,
    conversationId: conversation.id,
    agentId: source.agentId,
    agentVersion: 1,
    status: 'completed',
    options: { tools: [] },
    finishReason: 'stop',
    error: null,
    stepCount: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    createdAt: now,
    updatedAt: now,
    completedAt: now,
    leaseToken: null,
    takeovers: 0,
    requestKey: null,
  };
  const sourceAgentVersion = source.headTurnId
    ? (await context.store.turns.get(source.headTurnId))?.agentVersion
    : undefined;
  if (sourceAgentVersion !== undefined) historyTurn.agentVersion = sourceAgentVersion;
  conversation.headTurnId = historyTurn.id;
  const items: NewItem[] = copied.map((item) => ({
    id: context.newId('item'),
    conversationId: conversation.id,
    turnId: historyTurn.id,
    groupId: item.groupId,
    payload: item.payload,
    createdAt: item.createdAt,
  }));
  await context.store.transaction(async (tx) => {
    await tx.conversations.insert(conversation);
    await tx.turns.insert(historyTurn);
    for (let start = 0; start < items.length; start += COPY_BATCH)
      await tx.items.append(items.slice(start, start + COPY_BATCH));
  });
  return conversation;
}
