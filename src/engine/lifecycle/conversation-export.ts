import type { RowCounts } from '../../domain/lifecycle.ts';
import type {
  ConversationRecord,
  ItemRecord,
  LedgerEntryRecord,
  QueuedInputRecord,
  ResponseRecord,
  SessionRecord,
  TurnRecord,
} from '../../domain/records.ts';
import type { EngineContext } from '../engine-context.ts';

/** Everything Baton holds of one conversation, as records; faces render it (docs/conversation-export.md). */
export interface ConversationDump {
  conversation: ConversationRecord;
  /** The CES session over it, if any. */
  session: SessionRecord | null;
  /** Its Responses, hidden (deleted) ones included: they still delimit the items. */
  responses: ResponseRecord[];
  turns: TurnRecord[];
  items: ItemRecord[];
  /** Its ledger rows: client calls, approvals and server calls, with their decisions. */
  calls: LedgerEntryRecord[];
  queuedInputs: QueuedInputRecord[];
}

const PAGE = 500;

/** Reads the whole conversation, page by page (no long transaction: exports never hold the database). */
export async function readConversationDump(
  context: EngineContext,
  conversation: ConversationRecord,
): Promise<ConversationDump> {
  const { store } = context;
  const items: ItemRecord[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.items.list(conversation.id, { limit: PAGE, cursor });
    items.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  const calls: LedgerEntryRecord[] = [];
  cursor = null;
  do {
    const page = await store.ledger.list(
      { appId: conversation.appId, conversationId: conversation.id },
      { limit: PAGE, cursor },
    );
    calls.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return {
    conversation,
    session: (await store.sessions.getByConversation(conversation.id)) ?? null,
    responses: await store.lifecycle.listResponses(conversation.id),
    turns: await store.lifecycle.listTurns(conversation.id),
    items,
    calls,
    queuedInputs: await store.queuedInputs.listByConversation(conversation.id),
  };
}

/** What an export's audit event counts. */
export function dumpCounts(dump: ConversationDump): RowCounts {
  return { items: dump.items.length, tool_calls: dump.calls.length, turns: dump.turns.length };
}
