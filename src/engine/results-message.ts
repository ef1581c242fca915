import type { LedgerEntryRecord, TurnOptions, TurnRecord } from '../domain/records.ts';
import type { ConversationWithActiveTurn } from '../store/store.ts';
import { recordResultsBeforeApprovals } from './approvals.ts';
import { deliverAsyncResults } from './async-results.ts';
import { checkToolChoice, type HeldResultsOutcome, type RunOptions } from './engine-types.ts';
import type { InputItem } from './input-items.ts';
import { checkResultsMessage, readResults, type MatchedResult, type ToolResultInput } from './ledger/result-intake.ts';
import { checkEnforcedResponseSchemas } from './ledger/enforced-response-schemas.ts';
import { applyResult } from './ledger/ledger-transitions.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { openResultsResume } from './result-submission.ts';
import { assertValidToolSet } from './tool-schema.ts';
import type { TurnDispatch } from './turn-dispatch.ts';
import type { TurnOutcome } from './turn-runner.ts';

/**
 * Results for every pending call of a conversation's paused turn, in one message, then the turn
 * resumes (see `Engine.submitResults`). Approvals among the calls are recorded first and wait
 * for their decision; settings sent with the results apply to the rest of the turn. With
 * `holdPartial` (the Threads face), results for only some of the calls are held when the agent
 * allows it (`partialResults`, `hold` by default): see `holdResults`.
 */
export async function submitResultsMessage(
  context: EngineContext,
  dispatch: TurnDispatch,
  read: ConversationWithActiveTurn,
  results: ToolResultInput[],
  options: RunOptions,
  followUp: readonly InputItem[],
  optionsPatch: Partial<TurnOptions>,
  holdPartial = false,
): Promise<TurnOutcome | HeldResultsOutcome> {
  // Each result is read once with its ledger row. Results of earlier asynchronous calls may
  // ride along; they enter as input after the others.
  const { conversation } = read;
  const intake = await readResults(context, read, results);
  const delivery = deliverAsyncResults(context, intake.asynchronous, options);
  followUp = [...delivery.items, ...followUp];
  options = delivery.options;
  const agent = intake.turn ? await dispatch.agentForTurn(intake.turn) : undefined;
  // Only plain results are held: new input or settings sent with them need the whole set.
  const mayHold =
    holdPartial &&
    agent?.partialResults !== 'reject' &&
    followUp.length === 0 &&
    Object.keys(optionsPatch).length === 0;
  const matched = checkResultsMessage(conversation, intake, mayHold);
  const turn = intake.turn;
  if (!turn || !agent) throw new Error('unreachable: checkResultsMessage refuses a conversation without a paused turn');
  await checkEnforcedResponseSchemas(context, turn, agent, matched);
  const answered = new Set(matched.map(({ entry }) => entry.id));
  const missing = intake.pending.filter((entry) => !answered.has(entry.id));
  if (missing.length > 0)
    return holdResults(context, dispatch, turn, matched, [...missing, ...intake.approvals], options);
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
    checkToolChoice(agent, turnOptions);
  }
  return dispatch.admitAndRun(
    conversation.appId,
    async () => {
      const opening = await openResultsResume(context, {
        turn,
        entries: intake.entries,
        results: matched,
        submission: options.submission,
        followUp,
        onAccepted: options.onAccepted,
        turnOptions,
        historyLimit: agent.historyLimit,
        conversationVersion: conversation.version,
      });
      return { opening, agent };
    },
    options,
  );
}

/**
 * Results for some of a paused turn's calls: each is resolved in the ledger now (one
 * transaction), and the model waits for the rest, so it still sees the parallel set answered as
 * one message, in call order, once the set is complete. If the other calls were answered
 * meanwhile (two requests finishing the set at once), the turn resumes here: of two last answers
 * at least the later one sees nothing pending.
 */
async function holdResults(
  context: EngineContext,
  dispatch: TurnDispatch,
  turn: TurnRecord,
  results: readonly MatchedResult[],
  stillPending: LedgerEntryRecord[],
  options: RunOptions,
): Promise<TurnOutcome | HeldResultsOutcome> {
  const now = nowIso(context);
  const held = await context.store.transaction(async (tx) => {
    const resolved: LedgerEntryRecord[] = [];
    for (const { result, entry } of results)
      resolved.push(await applyResult(tx, entry, result, options.submission, now, `${result.param}.tool_call_id`));
    return resolved;
  });
  return (await dispatch.resumeNow(turn.id, options.listener)) ?? { turn, held, pendingCalls: stillPending };
}
