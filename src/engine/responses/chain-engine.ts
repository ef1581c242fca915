import type { ConversationRecord, LedgerEntryRecord, TurnOptions, TurnRecord } from '../../domain/records.ts';
import type { ConversationState, QueuedOutcome, RunOptions, UserInput } from '../engine-types.ts';
import type { InputItem } from '../input-items.ts';
import type { ToolResultInput } from '../ledger/result-intake.ts';
import type { TurnOutcome } from '../turn-runner.ts';
import type { DeleteOptions } from '../lifecycle/conversation-deletion.ts';
import type { RowCounts } from '../../domain/lifecycle.ts';

/**
 * The conversation operations response chains are built on: the engine's own methods, named
 * here so the chains depend on what they use rather than on the engine class that owns them.
 */
export interface ChainEngine {
  getConversation(appId: string, conversationId: string): Promise<ConversationRecord>;
  getConversationState(appId: string, conversationId: string): Promise<ConversationState>;
  startConversation(
    appId: string,
    agentName: string,
    metadata: Record<string, string>,
    input: UserInput,
    options: RunOptions,
  ): Promise<TurnOutcome>;
  sendMessage(
    appId: string,
    conversationId: string,
    input: UserInput,
    options: RunOptions,
  ): Promise<TurnOutcome | QueuedOutcome>;
  submitResults(
    appId: string,
    conversationId: string,
    results: ToolResultInput[],
    options: RunOptions,
    followUp?: readonly InputItem[],
    optionsPatch?: Partial<TurnOptions>,
  ): Promise<TurnOutcome>;
  forkConversation(appId: string, conversationId: string, uptoSeq: number): Promise<ConversationRecord>;
  deleteConversation(
    appId: string,
    conversationId: string,
    actor: string | null,
    options?: DeleteOptions,
  ): Promise<RowCounts>;
  cancel(
    appId: string,
    conversationId: string,
    actor: string | null,
  ): Promise<{ turn: TurnRecord; cancelledCalls: LedgerEntryRecord[] }>;
}
