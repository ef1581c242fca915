import type { ConversationRecord, TurnOptions } from '../domain/records.ts';
import { recordResultsBeforeApprovals } from './approvals.ts';
import { deliverAsyncResults } from './async-results.ts';
import type { EngineContext } from './engine-context.ts';
import { checkToolChoice, type RunOptions } from './engine-types.ts';
import type { InputItem } from './input-items.ts';
import { checkResultsMessage, readResults, type ToolResultInput } from './ledger/result-intake.ts';
import { openResultsResume } from './result-submission.ts';
import { assertValidToolSet } from './tool-schema.ts';
import type { TurnDispatch } from './turn-dispatch.ts';
import type { TurnOutcome } from './turn-runner.ts';

/**
 * Results for every pending call of a conversation's paused turn, in one message, then the turn
 * resumes (see `Engine.submitResults`). Approvals among the calls are recorded first and wait
 * for their decision; settings sent with the results apply to the rest of the turn.
 */
export async function submitResultsMessage(
  context: EngineContext,
  dispatch: TurnDispatch,
  conversation: ConversationRecord,
  results: ToolResultInput[],
  options: RunOptions,
  followUp: readonly InputItem[],
  optionsPatch: Partial<TurnOptions>,
): Promise<TurnOutcome> {
  // Each result is read once with its ledger row. Results of earlier asynchronous calls may
  // ride along; they enter as input after the others.
  const intake = await readResults(context, conversation, results);
  const delivery = deliverAsyncResults(context, intake.asynchronous, options);
  followUp = [...delivery.items, ...followUp];
  options = delivery.options;
  const matched = checkResultsMessage(conversation, intake);
  const turn = intake.turn;
  if (!turn) throw new Error('unreachable: checkResultsMessage refuses a conversation without a paused turn');
  if (intake.approvals.length > 0)
    return recordResultsBeforeApprovals(
      context,
      turn,
      matched,
      intake.approvals,
      options.submission,
      followUp.length > 0,
    );
  // Settings sent with the results (tools, tool_choice…) apply to the rest of the turn; they are
  // checked like a new turn's, before anything is written.
  const turnOptions = Object.keys(optionsPatch).length > 0 ? { ...turn.options, ...optionsPatch } : undefined;
  if (turnOptions) {
    assertValidToolSet(turnOptions.tools, 'tools');
    checkToolChoice(await dispatch.agentForTurn(turn), turnOptions);
  }
  return dispatch.admitAndRun(
    conversation.appId,
    async () => {
      const agent = await dispatch.agentForTurn(turn);
      const opening = await openResultsResume(context, {
        turn,
        entries: intake.entries,
        results: matched,
        submission: options.submission,
        followUp,
        onAccepted: options.onAccepted,
        turnOptions,
        historyLimit: agent.historyLimit,
      });
      return { opening, agent };
    },
    options,
  );
}
