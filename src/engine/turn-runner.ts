import type {
  AgentDefinition,
  ClientToolDefinition,
  LedgerEntryRecord,
  NewItem,
  TurnError,
  TurnRecord,
  TurnStatus,
} from '../domain/records.ts';
import { TurnSupersededError } from './conversation-version.ts';
import { endsTurn, writeStep, type StepWrites, type StepWritten } from './step-writes.ts';
import { nowIso, type EngineContext } from './engine-context.ts';
import { turnLogIds } from './engine-log-ids.ts';
import type { EngineEventListener } from './events.ts';
import { ModelCallError, runModelStep, StepAbortedError } from './model-step.ts';
import { toModelPrompt } from './model-prompt.ts';
import { trimToUserBoundary } from './history-window.ts';
import { outputsOf, planStepCalls } from './step-calls.ts';
import { runServerCalls } from './server-calls.ts';
import { answerClientCallsWithFakes, markFakedCalls } from './tool-fakes.ts';
import { blocksTurn } from './pending-calls.ts';
import { stepItems } from './step-items.ts';
import { settleInterruptedCalls } from './interrupted-calls.ts';
import { addUsage } from '../domain/usage.ts';
import type { WindowItem } from '../domain/queries.ts';
import type { RunOpening } from './run-opening.ts';

/** Where a turn stands when the engine hands control back to the caller. */
export interface TurnOutcome {
  turn: TurnRecord;
  /** Group id of the turn's last assistant reply: the id faces give the response message. */
  replyGroupId: string;
  /** Text of the last model step, if it said anything. */
  text: string | null;
  /** Client calls waiting for results, in call order (empty unless `requires_action`). */
  pendingCalls: LedgerEntryRecord[];
}

/**
 * The tools a turn may call: the agent's (inline, then the app tools it refers to), with
 * same-named per-request declarations taking precedence, narrowed to the request's
 * `allowedTools` when it gives them.
 */
export function toolsForTurn(
  agent: AgentDefinition,
  turn: TurnRecord,
  referenced: readonly ClientToolDefinition[] = [],
): ClientToolDefinition[] {
  const byName = new Map<string, ClientToolDefinition>();
  for (const tool of agent.tools) byName.set(tool.name, tool);
  for (const tool of referenced) byName.set(tool.name, tool);
  for (const tool of turn.options.tools) byName.set(tool.name, tool);
  const allowed = turn.options.allowedTools;
  const tools = [...byName.values()];
  return allowed ? tools.filter((tool) => allowed.includes(tool.name)) : tools;
}

/**
 * The agent loop for one turn that is `in_progress` and owned by the caller: step the model,
 * validate calls, pause on client calls, answer invalid ones to the model, finish on text.
 * Every step's writes (items, ledger rows, turn status, conversation version) commit together,
 * so a crash leaves either the whole step or none of it.
 */
export async function runTurn(
  context: EngineContext,
  startingTurn: TurnRecord,
  agent: AgentDefinition,
  listener: EngineEventListener | undefined,
  opening?: RunOpening,
): Promise<TurnOutcome> {
  const emit: EngineEventListener = listener ?? (() => {});
  let turn = startingTurn;
  let replyGroupId = context.newId('msg');
  let lastText: string | null = null;
  let invalidRounds = 0;
  // Read before the run registers: a refusal here (tools that cannot be prepared now) leaves nothing behind.
  const referenced = await context.tools.listTools(turn.appId, agent);
  const tools = toolsForTurn(agent, turn, referenced);
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const maxSteps = turn.options.maxSteps ?? agent.maxSteps;
  const parallel = turn.options.parallelToolCalls ?? agent.parallelToolCalls;
  const instructions = [agent.instructions, turn.options.instructions ?? ''].filter((text) => text !== '').join('\n\n');
  const maxToolCalls = turn.options.maxToolCalls;
  // Calls already made by this turn (before a pause) count against its `maxToolCalls` budget.
  let callsMade = maxToolCalls === undefined ? 0 : (await context.store.ledger.listByTurn(turn.id)).length;
  const controller = new AbortController();
  context.running.set(startingTurn.id, controller);
  // Every write of this run is guarded on its lease: once another process took the turn over,
  // none of them applies (see `TurnRecord.leaseToken`).
  const lease = startingTurn.leaseToken ?? undefined;
  context.logger.tag?.(turnLogIds(turn));
  emit({ type: 'turn.started', turn });
  // A long model call writes nothing for a while; the heartbeat renews the lease so that other
  // processes do not take the turn over (they do once it is silent for `staleTurnSeconds`). A
  // renewal refused means the turn is no longer this run's: its model call stops at once.
  const heartbeat = setInterval(
    () => {
      // Nothing to renew before the opening is written: no other process knows of the turn.
      if (opening && !opening.written) return;
      void context.store.turns
        .update(startingTurn.id, ['in_progress'], { updatedAt: nowIso(context) }, lease)
        .then((held) => held || controller.abort())
        .catch(() => {});
    },
    Math.max(1_000, (context.settings.staleTurnSeconds * 1000) / 3),
  );
  heartbeat.unref();
  // A slow first step (a real model) writes the opening alone, so the turn is seen running; if
  // another request changed the conversation first, the model call stops and the refusal is reported.
  const openingDeadline =
    opening && !opening.written
      ? setTimeout(() => {
          opening.writeNow().catch(() => {
            // A failure to commit (the database) is left to the step's own commit to meet again.
            if (opening.refusal) controller.abort();
          });
        }, context.settings.deferredOpeningMs)
      : undefined;
  openingDeadline?.unref();

  try {
    const model = context.models.resolve(agent.model);
    // A turn taken over from a process that died mid-step first settles the calls that step ran
    // (a run with an opening is a start or a resume here, never a takeover).
    if (!opening) turn = await settleInterruptedCalls(context, turn, toolsByName, controller.signal);
    while (turn.stepCount < maxSteps) {
      const groupId = context.newId('msg');
      const { window, isWholeHistory } = await readWindow(context, turn.conversationId, agent.historyLimit, opening);
      const history = trimToUserBoundary(isWholeHistory ? window : window.slice(1), isWholeHistory);

      // Reasoning streams before its item exists: its id is minted at once, so faces can name it.
      const reasoningIds = new Map<number, string>();
      const reasoningItemId = (index: number): string => {
        let id = reasoningIds.get(index);
        if (!id) {
          id = context.newId('item');
          reasoningIds.set(index, id);
        }
        return id;
      };
      const callIds = new Map<string, string>();
      const mintCallId = (providerCallId: string): string => {
        let callId = callIds.get(providerCallId);
        if (!callId) {
          callId = context.newId('call');
          callIds.set(providerCallId, callId);
        }
        return callId;
      };
      const step = await context.telemetry.modelStep(turn, agent.model, () =>
        runModelStep(
          {
            model,
            prompt: toModelPrompt(instructions, history, agent.model),
            tools,
            // A forced choice applies to the turn's first step only; forcing it again after the
            // results arrive would make the model call the tool forever. A spent call budget
            // forbids calls altogether.
            toolChoice:
              maxToolCalls !== undefined && callsMade >= maxToolCalls
                ? 'none'
                : turn.stepCount === 0 || turn.options.toolChoice === 'none'
                  ? turn.options.toolChoice
                  : undefined,
            parallelToolCalls: parallel,
            temperature: turn.options.temperature ?? agent.temperature,
            topP: turn.options.topP,
            maxOutputTokens: turn.options.maxOutputTokens ?? agent.maxOutputTokens,
            responseFormat: turn.options.responseFormat,
            providerOptions: agent.providerOptions,
            reasoning: turn.options.reasoning,
            maxRetries: context.settings.maxModelRetries,
            abortSignal: controller.signal,
          },
          {
            onTextDelta: (delta) => emit({ type: 'text.delta', groupId, delta }),
            onReasoningDelta: (index, delta) =>
              emit({ type: 'reasoning.delta', groupId, itemId: reasoningItemId(index), delta }),
            onCallStarted: (providerCallId, name) =>
              emit({ type: 'call.started', groupId, callId: mintCallId(providerCallId), name }),
            onCallArgumentsDelta: (providerCallId, delta) =>
              emit({ type: 'call.arguments.delta', callId: mintCallId(providerCallId), delta }),
          },
        ),
      );

      const now = context.clock.now();
      const createdAt = now.toISOString();
      const base = { conversationId: turn.conversationId, turnId: turn.id, createdAt };
      const calls = step.calls.map((call) => ({
        callId: mintCallId(call.providerCallId),
        name: call.name,
        argumentText: call.argumentText,
      }));
      const planned = planStepCalls(context, calls, {
        turn,
        agent,
        tools,
        parallel,
        maxToolCalls,
        callsMade,
        groupId,
        now,
      });
      const { entries, endsTurn } = planned;
      // Server calls (and fakes) run now, before the step commits, so their results commit with it.
      const useFakes = turn.options.useToolFakes === true;
      await answerClientCallsWithFakes(context, planned, toolsByName, controller.signal, useFakes);
      // Claims need the turn's row: an opening still unwritten is written first.
      if (opening && entries.some((entry) => entry.kind === 'server' && entry.state === 'pending'))
        await opening.writeNow();
      await runServerCalls(context, entries, toolsByName, controller.signal, useFakes, lease);
      markFakedCalls(planned);
      const newItem = (payload: NewItem['payload'], id = context.newId('item')): NewItem => ({
        ...base,
        id,
        groupId,
        payload,
      });
      const items = [
        ...stepItems(step.parts, planned.callItems, mintCallId, agent.model, newItem, reasoningItemId),
        ...planned.immediateOutputs,
      ];
      const blockingEntries = entries.filter(blocksTurn);
      const stepCount = turn.stepCount + 1;
      const usage = addUsage(turn.usage, step.usage);
      if (items.some((item) => item.payload.type === 'message' || item.payload.type === 'function_call')) {
        replyGroupId = groupId;
        lastText = step.text === '' ? null : step.text;
      }

      callsMade += entries.length;
      if (blockingEntries.length > 0) {
        // Results of server calls wait for the client's, so that all enter in call order at resume.
        const { turn: paused, appended } = await commitStep(context, opening, turn, items, 'requires_action', {
          stepCount,
          usage,
          finishReason: 'tool_use',
          entries,
        });
        turn = paused;
        for (const item of appended) emit({ type: 'item.added', item });
        emit({ type: 'turn.paused', turn, pending: blockingEntries });
        return { turn, replyGroupId, text: lastText, pendingCalls: blockingEntries };
      }

      items.push(
        ...outputsOf(
          context,
          entries.filter((entry) => entry.kind === 'server'),
          base,
          `${groupId}_server`,
        ),
      );
      if (entries.length > 0 || (planned.immediateOutputs.length > planned.invalidCount && !endsTurn)) {
        // Server results, system tools or asynchronous placeholders: the model goes on with them.
        const { turn: continued, appended } = await commitStep(context, opening, turn, items, 'in_progress', {
          stepCount,
          usage,
          entries,
        });
        turn = continued;
        for (const item of appended) emit({ type: 'item.added', item });
        const deferred = entries.filter((entry) => entry.kind === 'client_async');
        if (deferred.length > 0) emit({ type: 'calls.deferred', turn, calls: deferred });
        continue;
      }

      if (planned.invalidCount > 0 && !endsTurn) {
        invalidRounds += 1;
        if (invalidRounds > context.settings.maxInvalidCallRounds) {
          const error: TurnError = {
            code: 'invalid_tool_calls',
            message:
              `The model produced invalid tool calls ${invalidRounds} times in a row; the turn was stopped. ` +
              `Check the tool descriptions and schemas of agent '${agent.name}'.`,
          };
          const { turn: failed, appended } = await commitStep(context, opening, turn, items, 'failed', {
            stepCount,
            usage,
            finishReason: 'error',
            error,
          });
          turn = failed;
          for (const item of appended) emit({ type: 'item.added', item });
          emit({ type: 'turn.failed', turn });
          return { turn, replyGroupId, text: lastText, pendingCalls: [] };
        }
        const { turn: continued, appended } = await commitStep(context, opening, turn, items, 'in_progress', {
          stepCount,
          usage,
        });
        turn = continued;
        for (const item of appended) emit({ type: 'item.added', item });
        continue;
      }

      const { turn: completed, appended } = await commitStep(context, opening, turn, items, 'completed', {
        stepCount,
        usage,
        finishReason: step.finishReason === 'length' ? 'length' : 'stop',
      });
      turn = completed;
      for (const item of appended) emit({ type: 'item.added', item });
      emit({ type: 'turn.completed', turn });
      return { turn, replyGroupId, text: lastText, pendingCalls: [] };
    }

    const { turn: stopped } = await commitStep(context, opening, turn, [], 'completed', {
      stepCount: turn.stepCount,
      usage: turn.usage,
      finishReason: 'max_steps',
    });
    turn = stopped;
    emit({ type: 'turn.completed', turn });
    return { turn, replyGroupId, text: lastText, pendingCalls: [] };
  } catch (error) {
    // The opening lost to another request (its conversation changed first): nothing was written.
    if (opening?.refusal) throw opening.refusal.error;
    if (error instanceof TurnSupersededError || error instanceof StepAbortedError || controller.signal.aborted) {
      // Someone else (cancel, expiry) closed the turn; report it as it now stands.
      const current = (await context.store.turns.get(turn.id)) ?? turn;
      return { turn: current, replyGroupId, text: lastText, pendingCalls: [] };
    }
    const turnError = describeFailure(error);
    context.logger.warn({ ...turnLogIds(turn), code: turnError.code, err: error }, 'turn failed');
    try {
      const { turn: failed } = await commitStep(context, opening, turn, [], 'failed', {
        stepCount: turn.stepCount,
        usage: turn.usage,
        finishReason: 'error',
        error: turnError,
      });
      turn = failed;
      emit({ type: 'turn.failed', turn });
    } catch (commitError) {
      if (!(commitError instanceof TurnSupersededError)) throw commitError;
      turn = (await context.store.turns.get(turn.id)) ?? turn;
    }
    return { turn, replyGroupId, text: lastText, pendingCalls: [] };
  } finally {
    clearInterval(heartbeat);
    clearTimeout(openingDeadline);
    context.running.delete(startingTurn.id);
  }
}

interface StepCommit {
  stepCount: number;
  usage: TurnRecord['usage'];
  finishReason?: TurnRecord['finishReason'];
  error?: TurnError;
  entries?: LedgerEntryRecord[];
}

/**
 * Writes one step atomically: items, ledger rows, the turn's new status and the conversation
 * version; with the run's opening if that is still unwritten (one commit for both).
 */
async function commitStep(
  context: EngineContext,
  opening: RunOpening | undefined,
  turn: TurnRecord,
  items: NewItem[],
  status: TurnStatus,
  commit: StepCommit,
): Promise<StepWritten> {
  const updatedAt = nowIso(context);
  const entries = commit.entries ?? [];
  if (entries.length > 0) {
    // The calls this run pauses on carry its trace context, for whoever resumes them to link to.
    const runContext = context.telemetry.runContext(turn);
    if (runContext !== null)
      for (const entry of entries) if (entry.state === 'pending') entry.traceContext = runContext;
  }
  const step: StepWrites = {
    patch: {
      status,
      stepCount: commit.stepCount,
      usage: commit.usage,
      updatedAt,
      ...(commit.finishReason !== undefined ? { finishReason: commit.finishReason } : {}),
      ...(commit.error !== undefined ? { error: commit.error } : {}),
      ...(endsTurn(status) ? { completedAt: updatedAt } : {}),
    },
    items,
    entries,
  };
  if (opening) return opening.commit(step, (tx) => writeStep(tx, turn, step));
  return context.store.transaction((tx) => writeStep(tx, turn, step));
}

function describeFailure(error: unknown): TurnError {
  if (error instanceof ModelCallError) {
    return { code: 'model_error', message: `${error.message}. The input was saved; send a new message to try again.` };
  }
  if (error instanceof Error && (error as { code?: unknown }).code === 'unknown_model') {
    return { code: 'model_not_configured', message: error.message };
  }
  return {
    code: 'model_error',
    message: `The model call failed: ${error instanceof Error ? error.message : String(error)}.`,
  };
}

/**
 * The latest `limit + 1` items of the conversation, oldest first, counting the items of an
 * opening not yet written (the run's input), and whether that is the whole history.
 */
async function readWindow(
  context: EngineContext,
  conversationId: string,
  limit: number,
  opening: RunOpening | undefined,
): Promise<{ window: readonly WindowItem[]; isWholeHistory: boolean }> {
  // Read with the opening, before it was written: it holds none of the opening's items.
  const prefetched = opening?.takeStoredWindow();
  const unwrittenAtRead = opening !== undefined && !opening.written;
  // Read before the opening is written, the history is that of the version the opening was made at.
  const atVersion = unwrittenAtRead ? opening.conversationVersion : undefined;
  const stored = prefetched ?? (await context.store.items.listWindow(conversationId, limit + 1, atVersion));
  const unwritten = opening && (prefetched || unwrittenAtRead) ? opening.items : [];
  if (unwritten.length === 0 || (!prefetched && holdsOpening(stored, unwritten)))
    return { window: stored, isWholeHistory: stored.length <= limit };
  // Not stored yet, so without a seq: the prompt orders by position, never by seq.
  const window = [...stored, ...unwritten.map((item) => ({ seq: 0, groupId: item.groupId, payload: item.payload }))];
  return {
    window: window.slice(-(limit + 1)),
    isWholeHistory: stored.length <= limit && window.length <= limit,
  };
}

/**
 * Whether a window read while the opening was unwritten has its items: written alone while the
 * read ran (its items commit together), they are the conversation's newest, since nothing else
 * appends to it while its turn runs. So only the window's last items are looked at, as many as
 * the opening has; looking up the whole window (the agent's 201 items) cost 3 % of a round trip.
 */
function holdsOpening(stored: readonly WindowItem[], unwritten: readonly NewItem[]): boolean {
  const groups = new Set(unwritten.map((item) => item.groupId));
  for (let index = stored.length - 1; index >= Math.max(0, stored.length - unwritten.length); index--)
    if (groups.has(stored[index]!.groupId)) return true;
  return false;
}
