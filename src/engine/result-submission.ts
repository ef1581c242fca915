import type { ContentPart, ItemRecord, LedgerEntryRecord, TurnOptions, TurnRecord } from '../domain/records.ts';
import { toNewItems, type InputItem } from './input-items.ts';
import type { Repositories } from '../store/store.ts';
import { bumpConversation } from './conversation-version.ts';
import { BatonError } from '../domain/errors/baton-error.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { missingOutputs, writeMissingOutputs } from './turn-closing.ts';
import { refusing, RunOpening } from './run-opening.ts';
import { conversationPatchOf, writeEntries } from './step-writes.ts';
import { blocksTurn } from './pending-calls.ts';
import { alreadyResolved, applyResult, withResult, type SubmissionActor } from './ledger/ledger-transitions.ts';
import type { MatchedResult } from './ledger/result-intake.ts';
import type { WindowItem } from '../domain/queries.ts';

/**
 * Moves a paused turn back to `in_progress` when none of its calls is pending any more, writing
 * the results as one message. Returns the turn, with its ledger rows, if this caller won the
 * resume, else undefined (calls still pending, or another request resumed it first).
 */
export async function beginResume(
  context: EngineContext,
  tx: Repositories,
  turnId: string,
): Promise<{ turn: TurnRecord; calls: readonly LedgerEntryRecord[] } | undefined> {
  return beginResumeWithOutputs(context, tx, turnId);
}

/** `beginResume`, also returning the output items it wrote (the resumed turn's input). */
export async function beginResumeWithOutputs(
  context: EngineContext,
  tx: Repositories,
  turnId: string,
): Promise<{ turn: TurnRecord; calls: readonly LedgerEntryRecord[]; outputs: ItemRecord[] } | undefined> {
  const turn = await tx.turns.get(turnId);
  if (!turn || turn.status !== 'requires_action') return undefined;
  const entries = await tx.ledger.listByTurn(turnId);
  if (entries.some(blocksTurn)) return undefined;
  const now = nowIso(context);
  const resumed = await tx.turns.update(turnId, ['requires_action'], {
    status: 'in_progress',
    updatedAt: now,
    leaseToken: context.newId('lease'),
  });
  if (!resumed) return undefined;
  const outputs = await writeMissingOutputs(context, tx, resumed, entries);
  await bumpConversation(tx, resumed.appId, resumed.conversationId, { updatedAt: now });
  return { turn: resumed, calls: entries, outputs };
}

/** What a checked results message resumes a paused turn with (see `openResultsResume`). */
export interface ResultsResume {
  turn: TurnRecord;
  /** All the turn's ledger rows, as read with the results. */
  entries: readonly LedgerEntryRecord[];
  results: readonly MatchedResult[];
  submission: SubmissionActor;
  /** New user input sent with the results, appended after them. */
  followUp: readonly InputItem[];
  onAccepted:
    ((tx: Repositories, accepted: { turn: TurnRecord; inputItems: ItemRecord[] }) => Promise<void>) | undefined;
  /** Settings sent with the results, for the rest of the turn. */
  turnOptions: TurnOptions | undefined;
  /** The agent's history window: the first step's history is read here, once. */
  historyLimit: number;
  /** The conversation's version the results were checked against (its history is that version's). */
  conversationVersion: number;
}

/**
 * The resume a checked results message opens, not yet written (see `RunOpening`): it resolves
 * every call, moves the turn back to `in_progress` under a new lease, and appends the results
 * (with any follow-up input) as the run's next input, in one transaction. The opening's items are
 * built from the turn's rows and the results before anything is written; the history window
 * read for them is the first step's too.
 */
export async function openResultsResume(context: EngineContext, resume: ResultsResume): Promise<RunOpening> {
  const { turn, results, submission, turnOptions, onAccepted } = resume;
  const now = nowIso(context);
  const answered = new Map(results.map(({ result, entry }) => [entry.id, withResult(entry, result, submission, now)]));
  const entries = resume.entries.map((entry) => answered.get(entry.id) ?? entry);
  const patch = { status: 'in_progress' as const, updatedAt: now, leaseToken: context.newId('lease') };
  const resumed: TurnRecord = { ...turn, ...patch, ...(turnOptions ? { options: turnOptions } : {}) };
  // Nothing else writes the items of a turn that waits for results; the guarded update below
  // refuses the resume if another request got there first.
  const window = await context.store.items.listWindow(
    turn.conversationId,
    resume.historyLimit + 1,
    resume.conversationVersion,
  );
  const answeredCalls = answeredInWindow(window, entries) ?? (await answeredInTurn(context, turn.id));
  const items = [
    ...missingOutputs(context, resumed, entries, answeredCalls, now),
    ...toNewItems(context, resumed, resume.followUp, now),
  ];
  // With the first step folded in, the turn moves from `requires_action` straight to where the
  // step leaves it, the conversation moves on once, and the results and the step's items are
  // appended together.
  const opening = new RunOpening(
    context.store,
    resumed,
    items,
    async (tx, step) => {
      const updated = await refusing(async () => {
        for (const { result, entry } of results) {
          await applyResult(tx, entry, result, submission, now, `${result.param}.tool_call_id`);
        }
        const turnPatch = { ...patch, ...(turnOptions ? { options: turnOptions } : {}), ...step?.patch };
        const written = await tx.turns.update(turn.id, ['requires_action'], turnPatch);
        if (!written) {
          throw new BatonError(
            'concurrent_update',
            `Turn '${turn.id}' was resumed or closed by another request at the same time.`,
          );
        }
        return written;
      });
      const appended = await tx.items.append([...items, ...(step?.items ?? [])]);
      if (step) await writeEntries(tx, turn.id, step.entries);
      const conversation = step ? conversationPatchOf(step) : { updatedAt: now };
      await bumpConversation(tx, turn.appId, turn.conversationId, conversation ?? { updatedAt: now });
      if (onAccepted)
        await onAccepted(tx, { turn: step ? resumed : updated, inputItems: appended.slice(0, items.length) });
      return { turn: updated, appended: appended.slice(items.length) };
    },
    window,
    entries,
  );
  return opening;
}

/**
 * The calls of the turn whose output the transcript has, told by the history window when it holds
 * the call item of every one of `entries` (outputs come after their calls; the calls of a paused
 * step are the latest items): undefined when one call is older than the window.
 */
function answeredInWindow(
  window: readonly WindowItem[],
  entries: readonly LedgerEntryRecord[],
): Set<string> | undefined {
  // Read from the end only as far back as the oldest of the calls: their outputs come after them.
  const unseen = new Set(entries.map((entry) => entry.id));
  const outputs = new Set<string>();
  for (let index = window.length - 1; index >= 0 && unseen.size > 0; index--) {
    const payload = window[index]?.payload;
    if (payload?.type === 'function_call') unseen.delete(payload.callId);
    else if (payload?.type === 'function_call_output') outputs.add(payload.callId);
  }
  return unseen.size === 0 ? outputs : undefined;
}

/** The calls of the turn whose output the transcript has, read from all its items. */
async function answeredInTurn(context: EngineContext, turnId: string): Promise<Set<string>> {
  const items = await context.store.items.listByTurn(turnId);
  return new Set(items.flatMap((item) => (item.payload.type === 'function_call_output' ? [item.payload.callId] : [])));
}

/** Resolves one call through the ledger. The turn resumes separately, once nothing is pending. */
export async function resolveOneCall(
  context: EngineContext,
  appId: string,
  callId: string,
  result: { output: ContentPart[]; isError: boolean },
  submission: SubmissionActor,
  /** Checks the result against the call's tool before it is written (its enforced response schema). */
  check: (entry: LedgerEntryRecord) => Promise<void> = async () => {},
): Promise<LedgerEntryRecord> {
  const entry = await context.store.ledger.get(appId, callId);
  if (!entry) {
    throw new BatonError(
      'tool_call_not_found',
      `No tool call found with id '${callId}'. List pending calls with GET /v1/tool-calls?state=pending.`,
    );
  }
  if (entry.state !== 'pending') throw alreadyResolved(entry, 'tool_call_id');
  if (entry.kind === 'approval') {
    throw new BatonError(
      'approval_required',
      `Tool call '${callId}' waits for an approval, not a result: decide it with POST /v1/tool-calls/${callId}/decision ` +
        `{"approve": true|false, "reason": "…"}.`,
    );
  }
  await check(entry);
  return applyResult(context.store, entry, result, submission, nowIso(context), 'tool_call_id');
}
