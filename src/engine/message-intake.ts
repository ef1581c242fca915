import type { QueuedInputRecord } from '../domain/records.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { agentDeleted, callsPending, conversationBusy } from './engine-errors.ts';
import {
  checkToolChoice,
  type ConversationState,
  type QueuedOutcome,
  type RunOptions,
  type UserInput,
} from './engine-types.ts';
import { isPlainUserInput } from './input-items.ts';
import type { TurnDispatch } from './turn-dispatch.ts';
import { rejoinTurn, turnStartedBy } from './turn-rejoin.ts';
import { openTurn } from './turn-start.ts';
import type { TurnOutcome } from './turn-runner.ts';

/**
 * New user input for a conversation as it stands (`state`, just read). A retry of the request
 * that started the latest turn rejoins it; while a turn runs or waits, the input is queued
 * (policy `queue`) or refused with the reason (busy, calls pending); otherwise a turn starts under
 * compare-and-set on the conversation's version (`concurrent_update` when someone got there first).
 */
export async function sendToConversation(
  context: EngineContext,
  dispatch: TurnDispatch,
  state: ConversationState,
  input: UserInput,
  options: RunOptions,
): Promise<TurnOutcome | QueuedOutcome> {
  const { conversation, activeTurn } = state;
  const { appId, id: conversationId } = conversation;
  const agentRecord = await context.store.agents.getById(conversation.agentId);
  if (!agentRecord) {
    throw agentDeleted(conversation.agentName, conversationId);
  }
  // Only a retry of a request whose server died can find a turn it started: others skip the read.
  const startedByThisRequest =
    options.submission.retriesDeadRun === true
      ? await turnStartedBy(context, conversation, activeTurn, options.submission.idempotencyKey)
      : undefined;
  if (startedByThisRequest) return rejoinTurn(context, startedByThisRequest, options.listener);
  if (activeTurn) {
    const pendingIds = state.pendingCalls.map((entry) => entry.id);
    const first = input.items[0];
    if (
      agentRecord.definition.inputPolicy === 'queue' &&
      options.allowQueue !== false &&
      input.items.length === 1 &&
      first?.type === 'message' &&
      isPlainUserInput(input.items)
    ) {
      const queued: QueuedInputRecord = {
        id: context.newId('queued'),
        appId,
        conversationId,
        content: first.content,
        options: input.options,
        createdAt: nowIso(context),
      };
      await context.store.queuedInputs.insert(queued);
      // The turn may have ended between our read and the insert; make sure the queue is not stranded.
      dispatch.drainQueueLater(appId, conversationId);
      return { queued, pendingCallIds: pendingIds };
    }
    if (state.status === 'pending') {
      throw callsPending(conversationId, pendingIds);
    }
    throw conversationBusy(conversationId, activeTurn.id);
  }
  checkToolChoice(agentRecord.definition, input.options);
  return dispatch.admitAndRun(
    appId,
    async () => ({
      opening: openTurn(context, {
        conversation,
        agentId: agentRecord.id,
        agentVersion: agentRecord.version,
        inputs: [input],
        queuedIds: [],
        onAccepted: options.onAccepted,
        isNewConversation: false,
        requestKey: options.submission.idempotencyKey,
      }),
      agent: agentRecord.definition,
    }),
    options,
  );
}
