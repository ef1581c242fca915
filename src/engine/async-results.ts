import type { ConversationRecord, LedgerEntryRecord } from '../domain/records.ts';
import type { Repositories } from '../store/store.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import type { InputItem } from './input-items.ts';
import type { SubmissionActor, ToolResultInput } from './result-submission.ts';
import type { RunOptions } from './engine-types.ts';

/** Results of asynchronous calls found among a request's results, ready to be applied. */
export interface AsyncDelivery {
  /** The results that answer ordinary (blocking) calls, for the usual checks. */
  blocking: ToolResultInput[];
  /** One output item per asynchronous result, added to the conversation as input. */
  items: InputItem[];
  /** Call ids of `items`, which answer calls made in earlier steps (see `checkInputItems`). */
  callIds: Set<string>;
  /** Resolves the ledger entries; run inside the transaction that accepts the input. */
  resolve(tx: Repositories): Promise<void>;
}

/**
 * Separates results of asynchronous client calls (their turn went on without them) from the
 * rest. An asynchronous result enters the conversation as a new output of its call, and the
 * ledger entry is resolved in the same transaction, so it is delivered exactly once.
 */
export async function prepareAsyncResults(
  context: EngineContext,
  conversation: ConversationRecord,
  results: readonly ToolResultInput[],
  submission: SubmissionActor,
): Promise<AsyncDelivery> {
  const blocking: ToolResultInput[] = [];
  const delivered: { result: ToolResultInput; entry: LedgerEntryRecord }[] = [];
  for (const result of results) {
    const entry = await context.store.ledger.get(conversation.appId, result.callId);
    if (!entry || entry.kind !== 'client_async' || entry.conversationId !== conversation.id) {
      blocking.push(result);
      continue;
    }
    if (entry.state !== 'pending') {
      throw new BatonError(
        'tool_call_already_resolved',
        `Asynchronous tool call '${entry.id}' is already ${entry.state}; its result cannot be sent again.`,
        {
          param: `${result.param}.tool_call_id`,
          details: { tool_call_id: entry.id, state: entry.state },
        },
      );
    }
    if (delivered.some((other) => other.entry.id === entry.id)) {
      throw new BatonError(
        'duplicate_tool_result',
        `Duplicate result for tool call '${entry.id}' at ${result.param}: send exactly one result per call.`,
        {
          param: `${result.param}.tool_call_id`,
        },
      );
    }
    delivered.push({ result, entry });
  }
  return {
    blocking,
    items: delivered.map(({ result, entry }) => ({
      type: 'function_call_output',
      callId: entry.id,
      name: entry.toolName,
      output: result.output,
      isError: result.isError,
    })),
    callIds: new Set(delivered.map(({ entry }) => entry.id)),
    async resolve(tx) {
      const now = nowIso(context);
      for (const { result, entry } of delivered) {
        const resolved = await tx.ledger.resolve(entry.id, {
          state: result.isError ? 'failed' : 'completed',
          result: result.output,
          isError: result.isError,
          submittedBy: submission.actor,
          submittedAt: now,
          idempotencyKey: submission.idempotencyKey,
        });
        if (!resolved) {
          throw new BatonError(
            'tool_call_already_resolved',
            `Asynchronous tool call '${entry.id}' was answered by another request at the same time.`,
            {
              param: `${result.param}.tool_call_id`,
            },
          );
        }
      }
    },
  };
}

/** `prepareAsyncResults`, with run options whose `onAccepted` also resolves the ledger entries. */
export async function deliverAsyncResults(
  context: EngineContext,
  conversation: ConversationRecord,
  results: readonly ToolResultInput[],
  options: RunOptions,
): Promise<AsyncDelivery & { options: RunOptions }> {
  const delivery = await prepareAsyncResults(context, conversation, results, options.submission);
  if (delivery.items.length === 0) return { ...delivery, options };
  const onAccepted: RunOptions['onAccepted'] = async (tx, accepted) => {
    await delivery.resolve(tx);
    await options.onAccepted?.(tx, accepted);
  };
  return { ...delivery, options: { ...options, onAccepted } };
}
