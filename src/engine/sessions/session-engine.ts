import type { ConversationRecord, ContentPart, ItemRecord } from '../../domain/records.ts';
import type { Page, PageRequest } from '../../domain/page.ts';
import type { ChainEngine } from '../responses/chain-engine.ts';
import type { RunOptions } from '../engine-types.ts';
import type { LedgerEntryRecord } from '../../domain/records.ts';
import type { TurnOutcome } from '../turn-runner.ts';

/**
 * The conversation operations sessions are built on: the engine's own methods, named here so
 * sessions depend on what they use rather than on the engine class that owns them.
 */
export interface SessionEngine extends Pick<
  ChainEngine,
  | 'getConversation'
  | 'getConversationState'
  | 'startConversation'
  | 'sendMessage'
  | 'submitResults'
  | 'deleteConversation'
> {
  createConversation(appId: string, agentName: string, metadata: Record<string, string>): Promise<ConversationRecord>;
  submitCallResult(
    appId: string,
    callId: string,
    result: { output: ContentPart[]; isError: boolean },
    options: RunOptions,
  ): Promise<{ entry: LedgerEntryRecord; outcome: TurnOutcome | null }>;
  listItems(appId: string, conversationId: string, page: PageRequest): Promise<Page<ItemRecord>>;
}
